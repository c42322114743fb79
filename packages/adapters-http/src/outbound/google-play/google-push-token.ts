import { InvalidSignature, Unavailable } from "@atrium/domain"
import { Context, DateTime, Duration, Effect, Layer, Option, Predicate, Ref, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose"

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

// The reason a verification failed, for the log (the answer is `invalid_signature` alone).
const reasonOf = (error: unknown): string =>
  Predicate.hasProperty(error, "claim") && typeof error.claim === "string"
    ? error.claim
    : Predicate.hasProperty(error, "code") && typeof error.code === "string"
    ? error.code
    : "signature"

/**
 * Verifies a Pub/Sub push's `Authorization: Bearer <OIDC token>` with `jose`: RS256 by a key of Google's JWKS (fetched
 * from the configured URL, cached, fetched again for an unknown key id), issuer Google, the configured audience, the
 * configured service-account email (verified), not expired, not before its `nbf`. A JWKS that cannot be fetched is
 * `Unavailable` (Pub/Sub retries).
 */
export const makeGooglePushVerifier = (settings: GooglePushSettings) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const cacheMillis = Duration.toMillis(Duration.fromInputUnsafe(settings.cacheFor ?? "1 hour"))
    const cache = yield* Ref.make(Option.none<{ readonly keys: ReadonlyMap<string, JWK>; readonly fetchedAt: number }>())

    const fetchKeys = Effect.gen(function*() {
      const response = yield* client.execute(HttpClientRequest.get(settings.jwksUrl).pipe(HttpClientRequest.acceptJson))
      if (response.status !== 200) return yield* Effect.fail(new Unavailable({ dependency: "google_jwks" }))
      const jwks = yield* Schema.decodeUnknownEffect(Jwks)(yield* response.json)
      const keys = new Map<string, JWK>()
      for (const key of jwks.keys) {
        if (key.kty !== "RSA" || key.n === undefined || key.e === undefined) continue
        keys.set(key.kid, { kty: "RSA", n: key.n, e: key.e })
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
      if (Option.isSome(fresh) && now - fresh.value.fetchedAt < 60_000) return Option.none<JWK>()
      const keys = yield* fetchKeys
      yield* Ref.set(cache, Option.some({ keys, fetchedAt: now }))
      return Option.fromNullishOr(keys.get(kid))
    })

    return Effect.fn("GooglePush.verify")(function*(authorization: string) {
      const refuse = (reason: string) => Effect.fail(new InvalidSignature({ reason }))
      const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(authorization)
      if (match === null || match[1] === undefined) return yield* refuse("bearer token")
      const token = match[1]
      const header = yield* Effect.option(Effect.try({ try: () => decodeProtectedHeader(token), catch: () => "header" }))
      const kid = Option.getOrUndefined(header)?.kid
      if (kid === undefined) return yield* refuse("key id")
      const jwk = yield* keyFor(kid)
      if (Option.isNone(jwk)) return yield* refuse("unknown key")
      const now = yield* DateTime.now
      // jose checks the RS256 signature, issuer, audience, exp and nbf (60 s of skew, on the Effect clock); the email here.
      const verified = yield* Effect.tryPromise({
        try: async () =>
          jwtVerify(token, await importJWK(jwk.value, "RS256"), {
            algorithms: ["RS256"],
            issuer: [...issuers],
            audience: settings.audience,
            requiredClaims: ["exp"],
            clockTolerance: skewSeconds,
            currentDate: new Date(DateTime.toEpochMillis(now))
          }),
        catch: reasonOf
      }).pipe(Effect.catch(refuse))
      const claims = verified.payload
      // jose takes an audience list that merely includes ours; a push token names us alone.
      if (claims.aud !== settings.audience) return yield* refuse("audience")
      if (claims.email !== settings.serviceAccountEmail || claims.email_verified !== true) return yield* refuse("service account")
    })
  })

/** Google Play's Pub/Sub push tokens, checked at the door. */
export class GooglePushTokens extends Context.Service<GooglePushTokens, {
  /** Checks the `Authorization` header of a Pub/Sub push; a JWKS that cannot be fetched is `Unavailable`, never a 401. */
  readonly verify: (authorization: string) => Effect.Effect<void, InvalidSignature | Unavailable>
}>()("@atrium/adapters-http/GooglePushTokens") {
  /** With `jose`, against the JWKS at `settings.jwksUrl`. */
  static readonly layer = (settings: GooglePushSettings): Layer.Layer<GooglePushTokens, never, HttpClient.HttpClient> =>
    Layer.effect(GooglePushTokens, Effect.map(makeGooglePushVerifier(settings), (verify) => GooglePushTokens.of({ verify })))
}
