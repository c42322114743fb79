import { Context, Effect, Layer, Option, Redacted } from "effect"

/** Port: one-way digest of a secret (API key, session token) for storage and lookup. */
export class SecretHasher extends Context.Service<SecretHasher, {
  /** Lower-case hex SHA-256 digest, keyed with the server pepper when one is configured. */
  readonly digest: (secret: Redacted.Redacted<string>) => Effect.Effect<string>
}>()("@atrium/domain/SecretHasher") {
  /** Web Crypto SHA-256, or HMAC-SHA-256 under `pepper`, so a stolen table alone cannot be brute-forced offline. */
  static readonly layer = (pepper: Option.Option<Redacted.Redacted<string>>) =>
    Layer.effect(
      SecretHasher,
      Effect.gen(function*() {
        const subtle = globalThis.crypto.subtle
        const encoder = new TextEncoder()
        const hmacKey = Option.isSome(pepper)
          ? yield* Effect.promise(() =>
            subtle.importKey("raw", encoder.encode(Redacted.value(pepper.value)), { name: "HMAC", hash: "SHA-256" }, false, [
              "sign"
            ])
          )
          : undefined
        const toHex = (buffer: ArrayBuffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("")
        return SecretHasher.of({
          digest: (secret) =>
            Effect.promise(() => {
              const data = encoder.encode(Redacted.value(secret))
              return hmacKey === undefined ? subtle.digest("SHA-256", data) : subtle.sign("HMAC", hmacKey, data)
            }).pipe(Effect.map(toHex))
        })
      })
    )
}
