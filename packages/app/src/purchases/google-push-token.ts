import { InvalidSignature, Unavailable } from "@atrium/domain"
import { createPublicKey, type KeyObject, verify } from "node:crypto"
import { DateTime, Duration, Effect, Option, Predicate, Ref, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"

/** What a Pub/Sub push token must say: who it is for, which service account signed it, and where Google's keys are. */
export interface GooglePushSettings {
  readonly audience: string
  readonly serviceAccountEmail: string
  readonly jwksUrl: string
  /** How long fetched keys are trusted before they are fetched again (default one hour). */
  readonly cacheFor?: Duration.Input | undefined
}

const Jwks = Schema.Struct({
  keys: Schema.Array(Schema.Struct({ kid: Schema.String, kty: Schema.String, n: Schema.optional(Schema.String), e: Schema.optional(Schema.String) }))
})

const issuers = new Set(["https://accounts.google.com", "accounts.google.com"])
const skewSeconds = 60

const part = (text: string | undefined): unknown => {
  if (text === undefined) return undefined
  try {
    return JSON.parse(Buffer.from(text, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
}

const field = (value: unknown, name: string): unknown => Predicate.hasProperty(value, name) ? value[name] : undefined

/**
 * Verifies a Pub/Sub push's `Authorization: Bearer <OIDC token>`: RS256 by a key of Google's JWKS (fetched from the
 * configured URL, cached, fetched again for an unknown key id), issuer Google, the configured audience, the configured
 * service-account email (verified), not expired. A JWKS that cannot be fetched is `Unavailable` (Pub/Sub retries).
 */
export const makeGooglePushVerifier = (settings: GooglePushSettings) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const cacheMillis = Duration.toMillis(Duration.fromInputUnsafe(settings.cacheFor ?? "1 hour"))
    const cache = yield* Ref.make(Option.none<{ readonly keys: ReadonlyMap<string, KeyObject>; readonly fetchedAt: number }>())

    const fetchKeys = Effect.gen(function*() {
      const response = yield* client.execute(HttpClientRequest.get(settings.jwksUrl).pipe(HttpClientRequest.acceptJson))
      if (response.status !== 200) return yield* Effect.fail(new Unavailable({ dependency: "google_jwks" }))
      const jwks = yield* Schema.decodeUnknownEffect(Jwks)(yield* response.json)
      const keys = new Map<string, KeyObject>()
      for (const key of jwks.keys) {
        if (key.kty !== "RSA" || key.n === undefined || key.e === undefined) continue
        keys.set(key.kid, createPublicKey({ key: { kty: "RSA", n: key.n, e: key.e }, format: "jwk" }))
      }
      return keys
    }).pipe(
      Effect.timeoutOption("10 seconds"),
      Effect.flatMap(Option.match({ onNone: () => Effect.fail(new Unavailable({ dependency: "google_jwks" })), onSome: Effect.succeed })),
      Effect.mapError(() => new Unavailable({ dependency: "google_jwks" }))
    )

    const keyFor = Effect.fn("GooglePush.keyFor")(function*(kid: string) {
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      const cached = yield* Ref.get(cache)
      const fresh = Option.filter(cached, (c) => now - c.fetchedAt < cacheMillis)
      const known = Option.flatMap(fresh, (c) => Option.fromNullishOr(c.keys.get(kid)))
      if (Option.isSome(known)) return known
      // An unknown key id after a rotation: fetch again, at most once a minute.
      if (Option.isSome(fresh) && now - fresh.value.fetchedAt < 60_000) return Option.none<KeyObject>()
      const keys = yield* fetchKeys
      yield* Ref.set(cache, Option.some({ keys, fetchedAt: now }))
      return Option.fromNullishOr(keys.get(kid))
    })

    return Effect.fn("GooglePush.verify")(function*(authorization: string) {
      const refuse = (reason: string) => Effect.fail(new InvalidSignature({ reason }))
      const match = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(authorization)
      if (match === null) return yield* refuse("bearer token")
      const [, headerPart = "", claimsPart = "", signaturePart = ""] = match
      const header = part(headerPart)
      const claims = part(claimsPart)
      const kid = field(header, "kid")
      if (field(header, "alg") !== "RS256" || typeof kid !== "string") return yield* refuse("algorithm")
      const key = yield* keyFor(kid)
      if (Option.isNone(key)) return yield* refuse("unknown key")
      const signed = verify("sha256", Buffer.from(`${headerPart}.${claimsPart}`), key.value, Buffer.from(signaturePart, "base64url"))
      if (!signed) return yield* refuse("signature")
      const now = Math.floor(DateTime.toEpochMillis(yield* DateTime.now) / 1000)
      const exp = field(claims, "exp")
      const iss = field(claims, "iss")
      if (typeof iss !== "string" || !issuers.has(iss)) return yield* refuse("issuer")
      if (field(claims, "aud") !== settings.audience) return yield* refuse("audience")
      if (field(claims, "email") !== settings.serviceAccountEmail || field(claims, "email_verified") !== true) return yield* refuse("service account")
      if (typeof exp !== "number" || exp + skewSeconds < now) return yield* refuse("expired")
    })
  })
