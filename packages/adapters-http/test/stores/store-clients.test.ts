import { Stores } from "@atrium/domain"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { generateKeyPairSync, type KeyObject, sign, verify } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { AppStoreServerApi, AppStoreServerApiHttp } from "../../src/outbound/app-store/app-store-server-api.ts"
import { GooglePushTokens } from "../../src/outbound/google-play/google-push-token.ts"
import { PlayDeveloperApi, PlayDeveloperApiHttp } from "../../src/outbound/google-play/play-developer-api.ts"
import { type AppStoreOptions, type GooglePlayOptions, StoresHttp } from "../../src/outbound/stores.ts"
import { testApplePki } from "./test-certificates.ts"

// Real keys made here: the App Store's In-App Purchase key (P-256), a Google service account (RSA), and Google's OIDC signer.
const appleKey = generateKeyPairSync("ec", { namedCurve: "prime256v1" })
const serviceAccount = generateKeyPairSync("rsa", { modulusLength: 2048 })
const oidc = generateKeyPairSync("rsa", { modulusLength: 2048 })
const applePem = appleKey.privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const googlePem = serviceAccount.privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const pki = testApplePki()

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

// One loopback server plays every store endpoint; tests script it through these variables.
const seen: Array<Seen> = []
let ackFailures = 0
let jwksUp = true
let server: Server
let base = ""

const json = (value: unknown) => JSON.stringify(value)
const jwt = (key: KeyObject, header: object, claims: object) => {
  const input = `${Buffer.from(json(header)).toString("base64url")}.${Buffer.from(json(claims)).toString("base64url")}`
  return `${input}.${sign("sha256", Buffer.from(input), key).toString("base64url")}`
}

beforeAll(() =>
  new Promise<void>((resolve) => {
    server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString()))
      request.on("end", () => {
        const url = request.url ?? ""
        seen.push({ method: request.method ?? "", url, headers: request.headers, body })
        const reply = (status: number, value: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(json(value))
        if (url === "/jwks") return jwksUp ? reply(200, { keys: [{ ...oidc.publicKey.export({ format: "jwk" }), kid: "k1", alg: "RS256" }] }) : reply(503, {})
        if (url === "/token") return reply(200, { access_token: "ya29.fake-access", expires_in: 3600 })
        if (url.startsWith("/apple/inApps/v1/transactions/")) return reply(200, { signedTransactionInfo: pki.sign({ transactionId: "1" }) })
        if (url.startsWith("/apple/inApps/v1/subscriptions/")) {
          return reply(200, { data: [{ lastTransactions: [{ originalTransactionId: "1", status: 1, signedTransactionInfo: "a", signedRenewalInfo: "b" }] }] })
        }
        if (url.includes("/subscriptionsv2/tokens/")) {
          return reply(200, {
            subscriptionState: "SUBSCRIPTION_STATE_ACTIVE",
            acknowledgementState: "ACKNOWLEDGEMENT_STATE_PENDING",
            latestOrderId: "GPA.1",
            lineItems: [{ productId: "pro_monthly", expiryTime: "2031-01-01T00:00:00Z", autoRenewingPlan: { autoRenewEnabled: true } }]
          })
        }
        if (url.endsWith(":acknowledge")) {
          if (ackFailures > 0) {
            ackFailures--
            return reply(503, { error: "try later" })
          }
          return response.writeHead(204).end()
        }
        if (url.includes("/products/")) return reply(404, { error: "no such purchase" })
        reply(404, {})
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
      resolve()
    })
  })
)
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const config = (): { readonly apple: AppStoreOptions; readonly google: GooglePlayOptions } => ({
  apple: {
    bundleId: "com.example.atrium",
    environments: ["production"],
    issuerId: "issuer-1",
    keyId: "KEY123",
    privateKey: Redacted.make(applePem),
    productionUrl: `${base}/apple`,
    sandboxUrl: `${base}/apple-sandbox`,
    rootCertificates: Option.some(pki.root.cert.toString())
  },
  google: {
    packageName: "com.example.atrium",
    serviceAccountEmail: "play@atrium.iam.gserviceaccount.com",
    privateKey: Redacted.make(googlePem),
    tokenUrl: `${base}/token`,
    apiUrl: base,
    pushAudience: "https://atrium.example/api/store-notifications/google",
    pushServiceAccount: "pubsub@atrium.iam.gserviceaccount.com",
    jwksUrl: `${base}/jwks`
  }
})

// The store clients as the adapters build them, each fresh (its token caches empty).
const clients = () => {
  const { apple, google } = config()
  return Layer.mergeAll(
    AppStoreServerApiHttp.layer(apple),
    PlayDeveloperApiHttp.layer(google),
    GooglePushTokens.layer({ audience: google.pushAudience, serviceAccountEmail: google.pushServiceAccount, jwksUrl: google.jwksUrl })
  ).pipe(Layer.provide(FetchHttpClient.layer))
}
const run = <A, E>(effect: Effect.Effect<A, E, AppStoreServerApi | PlayDeveloperApi | GooglePushTokens>) =>
  Effect.runPromise(Effect.result(effect.pipe(Effect.provide(Layer.fresh(clients())))))

const decodePart = (token: string, index: number): unknown => JSON.parse(Buffer.from(token.split(".")[index] ?? "", "base64url").toString())

describe("store clients against loopback fakes", () => {
  it("App Store Server API: an ES256 JWT from the configured key, the signed answer passed through", async () => {
    seen.length = 0
    const result = await run(Effect.flatMap(AppStoreServerApi, (api) => api.transaction("1000", "production")))
    assert.strictEqual(result._tag, "Success")
    const request = seen.find((s) => s.url === "/apple/inApps/v1/transactions/1000")
    const token = (request?.headers.authorization ?? "").replace(/^Bearer /, "")
    const [header, claims, signature] = token.split(".")
    assert.isTrue(verify("sha256", Buffer.from(`${header}.${claims}`), { key: appleKey.publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature ?? "", "base64url")))
    assert.deepInclude(decodePart(token, 0), { alg: "ES256", kid: "KEY123", typ: "JWT" })
    assert.deepInclude(decodePart(token, 1), { iss: "issuer-1", aud: "appstoreconnect-v1", bid: "com.example.atrium" })
  })

  it("Google Play: a service-account JWT for an OAuth token, then the Developer API with that token", async () => {
    seen.length = 0
    const result = await run(Effect.flatMap(PlayDeveloperApi, (api) => api.subscription(Redacted.make("purchase-token-1"))))
    assert.strictEqual(result._tag, "Success")
    if (result._tag === "Success") assert.strictEqual(result.success.lineItems[0]?.autoRenewing, true)
    const tokenRequest = seen.find((s) => s.url === "/token")
    const assertion = new URLSearchParams(tokenRequest?.body ?? "").get("assertion") ?? ""
    const [header, claims, signature] = assertion.split(".")
    assert.isTrue(verify("sha256", Buffer.from(`${header}.${claims}`), serviceAccount.publicKey, Buffer.from(signature ?? "", "base64url")))
    assert.deepInclude(decodePart(assertion, 1), { iss: "play@atrium.iam.gserviceaccount.com", scope: "https://www.googleapis.com/auth/androidpublisher" })
    const apiRequest = seen.find((s) => s.url.includes("/subscriptionsv2/tokens/purchase-token-1"))
    assert.strictEqual(apiRequest?.headers.authorization, "Bearer ya29.fake-access")
    assert.include(apiRequest?.url ?? "", "/androidpublisher/v3/applications/com.example.atrium/purchases/")
  })

  it("Google Play: acknowledge fails as unreachable while the store answers 503, then succeeds; 404 is a rejection", async () => {
    ackFailures = 1
    const ack = Effect.flatMap(PlayDeveloperApi, (api) => api.acknowledge("subscription", "pro_monthly", Redacted.make("t")))
    const first = await run(ack)
    assert.isTrue(first._tag === "Failure" && first.failure._tag === "StoreUnreachable")
    assert.strictEqual((await run(ack))._tag, "Success")
    const missing = await run(Effect.flatMap(PlayDeveloperApi, (api) => api.product("lifetime", Redacted.make("t"))))
    assert.isTrue(missing._tag === "Failure" && missing.failure._tag === "StoreRejected")
  })

  it("a lone surrogate in a purchase token or transaction id is a rejected request, never a thrown URIError", async () => {
    seen.length = 0
    const lone = "tok\uD800en"
    const outcomes = await Promise.all([
      run(Effect.flatMap(PlayDeveloperApi, (api) => api.subscription(Redacted.make(lone)))),
      run(Effect.flatMap(PlayDeveloperApi, (api) => api.consume("credits.pack", Redacted.make(lone)))),
      run(Effect.flatMap(AppStoreServerApi, (api) => api.subscriptionStatuses(lone, "production")))
    ])
    for (const outcome of outcomes) assert.isTrue(outcome._tag === "Failure" && outcome.failure._tag === "StoreRejected", JSON.stringify(outcome))
    assert.isFalse(seen.some((s) => s.url.includes("tok")))
  })

  it("Pub/Sub push tokens: the right audience and service account pass; anything else is invalid_signature; no JWKS is 503", async () => {
    const now = Math.floor(Date.now() / 1000)
    const good = { iss: "https://accounts.google.com", aud: "https://atrium.example/api/store-notifications/google", email: "pubsub@atrium.iam.gserviceaccount.com", email_verified: true, iat: now, exp: now + 600 }
    const check = (token: string) => run(Effect.flatMap(GooglePushTokens, (s) => s.verify(`Bearer ${token}`)))
    assert.strictEqual((await check(jwt(oidc.privateKey, { alg: "RS256", kid: "k1" }, good)))._tag, "Success")
    for (const bad of [{ ...good, aud: "https://elsewhere" }, { ...good, email: "someone@else.com" }, { ...good, exp: now - 3600 }, { ...good, iss: "https://evil" }, { ...good, nbf: now + 3600 }, { ...good, aud: [good.aud, "https://elsewhere"], azp: "https://elsewhere" }]) {
      const result = await check(jwt(oidc.privateKey, { alg: "RS256", kid: "k1" }, bad))
      assert.isTrue(result._tag === "Failure" && result.failure._tag === "InvalidSignature", JSON.stringify(bad))
    }
    const forged = await check(jwt(generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey, { alg: "RS256", kid: "k1" }, good))
    assert.isTrue(forged._tag === "Failure" && forged.failure._tag === "InvalidSignature")
    jwksUp = false
    const down = await check(jwt(oidc.privateKey, { alg: "RS256", kid: "k1" }, good))
    jwksUp = true
    assert.isTrue(down._tag === "Failure" && down.failure._tag === "Unavailable")
  })

  it("a store that is not configured is never called", async () => {
    seen.length = 0
    const none = StoresHttp.layer({ apple: Option.none(), google: Option.none() }).pipe(Layer.provide(FetchHttpClient.layer))
    const read = Effect.flatMap(Stores, (stores) => stores.read({ store: "play_store", storeRef: "r", productId: "pro_monthly", kind: "subscription", token: Redacted.make("x") }))
    const result = await Effect.runPromise(Effect.exit(read.pipe(Effect.provide(none))))
    assert.strictEqual(result._tag, "Failure")
    assert.deepStrictEqual(seen, [])
  })
})
