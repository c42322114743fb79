import { EmbeddedPostgres } from "@atrium/adapters-pg"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { generateKeyPairSync } from "node:crypto"
import { rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { join } from "node:path"
import { startServer, tempWorkDir } from "./server-process.ts"
import { untilRows } from "./support/embedded-rows.ts"
import { testApplePki } from "../../adapters-http/test/stores/test-certificates.ts"

const workDir = tempWorkDir("atrium-stores-")
const dataDir = join(workDir, "data")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

// The credentials under test: none may leave the server except towards the store that issued them.
const applePem = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const googlePem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const accessToken = "ya29.SECRET-ACCESS-TOKEN-4b1c9e"
const purchaseToken = "ptok-SECRET-PURCHASE-TOKEN-77d2a1"
const keyLine = (pem: string) => pem.split("\n")[2] ?? "unreachable"
const secrets = [keyLine(applePem), keyLine(googlePem), accessToken]
const pki = testApplePki()
const bundleId = "com.example.atrium"

/** Fake App Store and Google endpoints on loopback that echo what they were sent, as careless stores do in errors. */
const fakeStores = () =>
  new Promise<{ url: string; seen: Array<IncomingHttpHeaders>; close: () => void }>((resolve) => {
    const seen: Array<IncomingHttpHeaders> = []
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString()))
      request.on("end", () => {
        seen.push(request.headers)
        const url = request.url ?? ""
        const reply = (status: number, value: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value))
        if (url === "/token") return reply(200, { access_token: accessToken, expires_in: 3600 })
        if (url.startsWith("/apple/")) return reply(401, { error: `bad token ${request.headers.authorization ?? ""}` })
        if (url.endsWith(":acknowledge")) return reply(500, { error: `cannot ack ${request.headers.authorization ?? ""} ${url}` })
        if (url.includes("/products/")) return reply(200, { purchaseState: 0, acknowledgementState: 0, orderId: "GPA.1", purchaseType: 0 })
        reply(404, { echo: body })
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ url: `http://127.0.0.1:${port}`, seen, close: () => server.close() })
    })
  })

describe("the store credentials never leave the server", () => {
  it("are absent from responses, errors, logs and every database row", async () => {
    const stores = await fakeStores()
    const env = {
      ATRIUM_DATA_DIR: dataDir,
      ATRIUM_STORE_PRODUCTS: JSON.stringify([
        { store: "app_store", productId: "pro.monthly", kind: "subscription", features: ["ai.advanced"] },
        { store: "play_store", productId: "lifetime", kind: "non_consumable", features: ["ai.advanced"] }
      ]),
      ATRIUM_APPLE_BUNDLE_ID: bundleId,
      ATRIUM_APPLE_ISSUER_ID: "issuer",
      ATRIUM_APPLE_KEY_ID: "KEY1",
      ATRIUM_APPLE_PRIVATE_KEY: applePem,
      ATRIUM_APPLE_API_URL: `${stores.url}/apple`,
      ATRIUM_APPLE_ROOT_CERTIFICATES: pki.root.cert.toString(),
      ATRIUM_GOOGLE_PACKAGE_NAME: bundleId,
      ATRIUM_GOOGLE_SERVICE_ACCOUNT: JSON.stringify({ client_email: "play@example.iam.gserviceaccount.com", private_key: googlePem }),
      ATRIUM_GOOGLE_TOKEN_URL: `${stores.url}/token`,
      ATRIUM_GOOGLE_API_URL: stores.url,
      ATRIUM_GOOGLE_PUSH_AUDIENCE: "https://atrium.example/push",
      ATRIUM_GOOGLE_PUSH_SERVICE_ACCOUNT: "pubsub@example.iam.gserviceaccount.com",
      ATRIUM_GOOGLE_JWKS_URL: `${stores.url}/jwks`
    }
    const server = await startServer(env)
    const bodies: Array<string> = []
    let session = ""
    const call = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: { "content-type": "application/json", ...(session === "" ? {} : { authorization: `Bearer ${session}` }) }
      })
      const text = await response.text()
      bodies.push(text, JSON.stringify([...response.headers]))
      return { status: response.status, text }
    }
    try {
      const signedUp = await call("/api/auth/sign-up", { method: "POST", body: JSON.stringify({ email: "buyer@example.com", password: "correct horse battery", name: "Buyer" }) })
      session = String(JSON.parse(signedUp.text).session.accessToken)
      expect((await call("/api/mobile/purchases/availability?platform=android")).status).toBe(200)
      const google = await call("/api/mobile/purchases/sync", { method: "POST", body: JSON.stringify({ store: "play_store", purchaseToken, productId: "lifetime" }) })
      expect(google.status, google.text).toBe(200)
      const now = Date.now()
      const signedTransaction = pki.sign({ transactionId: "1", originalTransactionId: "1", bundleId, productId: "pro.monthly", environment: "Production", signedDate: now, expiresDate: now + 86_400_000 })
      const apple = await call("/api/mobile/purchases/sync", { method: "POST", body: JSON.stringify({ store: "app_store", signedTransaction }) })
      expect(apple.status, apple.text).toBe(202)
      await call("/api/mobile/purchases")
      await call("/api/store-notifications/google", { method: "POST", body: JSON.stringify({ message: { data: "e30=", messageId: "m" } }) })
      // The Google purchase's acknowledgement runs in the background: the store's 500 (echoing the token) handled and
      // recorded as a failed attempt, whatever the server made of it is in its output and rows.
      await untilRows(dataDir, (sql) => sql<{ readonly attempts: number }>`SELECT ack_attempts AS attempts FROM purchases WHERE store = 'play_store'`, ([row]) =>
        (row?.attempts ?? 0) >= 1)
    } finally {
      await server.stop()
      stores.close()
    }
    // The credentials did reach the stores, in their Authorization headers.
    expect(stores.seen.map((headers) => headers.authorization)).toContain(`Bearer ${accessToken}`)
    expect(stores.seen.some((headers) => (headers.authorization ?? "").startsWith("Bearer ey"))).toBe(true)

    const everything = bodies.join("\n") + server.output()
    for (const secret of secrets) expect(everything).not.toContain(secret)

    // Every row of every table, read through the embedded server of the data directory (started again for this).
    const { purchases, tables } = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const names = yield* sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public'`
      const tables = yield* Effect.forEach(names, ({ table_name }) =>
        sql`select * from ${sql(table_name)}`.pipe(Effect.map((rows) => ({ table_name, rows }))))
      const purchases = yield* sql<{ store: string; status: string }>`select store, status from purchases`
      return { purchases, tables }
    }).pipe(Effect.provide(EmbeddedPostgres({ dataDir }))))
    expect(tables.length).toBeGreaterThan(10)
    for (const { rows, table_name } of tables) {
      const text = JSON.stringify(rows, (_k, v: unknown) => typeof v === "bigint" ? String(v) : v)
      for (const secret of [...secrets, purchaseToken]) expect(text, table_name).not.toContain(secret)
    }
    expect(purchases.map((row) => ({ store: row.store, status: row.status }))).toEqual([{ store: "play_store", status: "active" }])
  }, 120_000)
})
