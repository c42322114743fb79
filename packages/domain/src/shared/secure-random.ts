import { Context, Effect, Layer } from "effect"

/** Port: cryptographically secure random bytes (key secrets, tokens, ids). */
export class SecureRandom extends Context.Service<SecureRandom, {
  readonly bytes: (length: number) => Effect.Effect<Uint8Array>
}>()("@atrium/domain/SecureRandom") {
  /** Web Crypto (`globalThis.crypto`), present in every runtime Atrium targets, so the domain needs no import. */
  static readonly layer = Layer.succeed(SecureRandom, SecureRandom.of({
    bytes: (length) => Effect.sync(() => globalThis.crypto.getRandomValues(new Uint8Array(length)))
  }))
}
