import { IdGenerator, SecretHasher, SecureRandom } from "@atrium/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, hash, type Hash } from "node:crypto"

// SHA-256 works on 64-byte blocks; HMAC (RFC 2104) pads its key to one block.
const blockBytes = 64

// The HMAC key padded to a block and XOR-ed with `pad`, already fed to a SHA-256 state that each digest copies.
const keyedState = (key: Buffer, pad: number): Hash => {
  const block = Buffer.alloc(blockBytes, pad)
  for (let i = 0; i < key.length; i++) block[i] = key[i]! ^ pad
  return createHash("sha256").update(block)
}

/**
 * The `SecretHasher` port on synchronous `node:crypto`: byte-for-byte the digests of the domain's Web Crypto layer
 * (`SecretHasher.layer`) — SHA-256, or HMAC-SHA-256 under the pepper — so stored keys keep working. It runs on every
 * authenticated request: no promise, no thread-pool hop, and the keyed HMAC states are built once, not per digest.
 */
export const NodeSecretHasher = (pepper: Option.Option<Redacted.Redacted<string>>): Layer.Layer<SecretHasher> =>
  Layer.effect(
    SecretHasher,
    Effect.suspend(() => {
      if (Option.isNone(pepper)) {
        return Effect.succeed(SecretHasher.of({ digest: (secret) => Effect.sync(() => hash("sha256", Redacted.value(secret), "hex")) }))
      }
      const raw = Buffer.from(Redacted.value(pepper.value), "utf8")
      // Like Web Crypto, which refuses to import an empty HMAC key: an empty pepper is a configuration error.
      if (raw.length === 0) return Effect.die(new Error("ATRIUM_KEY_PEPPER must not be empty"))
      const key = raw.length > blockBytes ? createHash("sha256").update(raw).digest() : raw
      const inner = keyedState(key, 0x36)
      const outer = keyedState(key, 0x5c)
      return Effect.succeed(SecretHasher.of({
        digest: (secret) =>
          Effect.sync(() => outer.copy().update(inner.copy().update(Redacted.value(secret), "utf8").digest()).digest("hex"))
      }))
    })
  )

/** The domain's `Primitives` with `NodeSecretHasher` in place of the Web Crypto hasher. */
export const NodePrimitives = (pepper: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  Layer.mergeAll(IdGenerator.layer, NodeSecretHasher(pepper)).pipe(Layer.provideMerge(SecureRandom.layer))
