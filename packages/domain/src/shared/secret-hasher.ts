import { Context, Effect, Layer, Option, Redacted } from "effect"
import { Digest, Mac } from "effect/crypto"
import { Hex } from "effect/encoding"

/** Port: one-way digest of a secret (API key, session token) for storage and lookup. */
export class SecretHasher extends Context.Service<SecretHasher, {
  /** Lower-case hex SHA-256 digest, keyed with the server pepper when one is configured. */
  readonly digest: (secret: Redacted.Redacted<string>) => Effect.Effect<string>
}>()("@atrium/domain/SecretHasher") {
  /**
   * SHA-256, or HMAC-SHA-256 under `pepper` so a stolen table alone cannot be brute-forced offline, on the host's
   * `Digest` and `Mac` (Web Crypto in `Primitives`, `node:crypto` in the app). An empty pepper is a configuration error.
   */
  static readonly layer = (pepper: Option.Option<Redacted.Redacted<string>>): Layer.Layer<SecretHasher, never, Digest.Digest | Mac.Mac> =>
    Layer.effect(
      SecretHasher,
      Effect.gen(function*() {
        const digests = yield* Digest.Digest
        const macs = yield* Mac.Mac
        const encoder = new TextEncoder()
        const bytesOf = (secret: Redacted.Redacted<string>) => encoder.encode(Redacted.value(secret))
        if (Option.isNone(pepper)) {
          return SecretHasher.of({ digest: (secret) => digests.digestHex(Digest.sha256, bytesOf(secret)) })
        }
        const key = yield* Effect.orDie(Mac.key(Mac.hmacSha256, bytesOf(pepper.value)))
        return SecretHasher.of({
          // A key built above signs any bytes: a failure here is a defect of the runtime, not an outcome.
          digest: (secret) => macs.sign(key, bytesOf(secret)).pipe(Effect.map(Hex.encode), Effect.orDie)
        })
      })
    )
}
