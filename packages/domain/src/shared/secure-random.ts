import { Context, Effect, Layer } from "effect"
import * as Crypto from "effect/crypto"

/** Port: cryptographically secure random bytes (key secrets, tokens, ids). */
export class SecureRandom extends Context.Service<SecureRandom, {
  readonly bytes: (length: number) => Effect.Effect<Uint8Array>
}>()("@atrium/domain/SecureRandom") {
  /** `effect/crypto`'s Web Crypto randomness, present in every runtime Atrium targets. */
  static readonly layer = Layer.effect(
    SecureRandom,
    Effect.map(Crypto.SecureRandom.SecureRandom, (random) => SecureRandom.of({ bytes: random.randomBytes }))
  ).pipe(Layer.provide(Crypto.SecureRandom.layerWebCrypto))
}
