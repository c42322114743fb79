import { IdGenerator, SecretHasher, SecureRandom } from "@atrium/domain"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHmac, createSecretKey, hash } from "node:crypto"

/**
 * The `SecretHasher` port on synchronous `node:crypto`: byte-for-byte the digests of the domain's Web Crypto layer
 * (`SecretHasher.layer`) — SHA-256, or HMAC-SHA-256 under the pepper — so stored keys keep working. It runs on every
 * authenticated request: no promise, no thread-pool hop, and the pepper is imported once as a key object.
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
      const key = createSecretKey(raw)
      return Effect.succeed(SecretHasher.of({
        digest: (secret) => Effect.sync(() => createHmac("sha256", key).update(Redacted.value(secret), "utf8").digest("hex"))
      }))
    })
  )

/**
 * The domain's `Primitives` on `node:crypto`: `NodeSecretHasher` in place of the Web Crypto hasher, and the platform's
 * `Digest` (synchronous `createHash`, the same bytes) in place of Web Crypto's, which sends each digest of a keyed AI
 * submission's request to the thread pool and back through a promise.
 */
export const NodePrimitives = (pepper: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  Layer.mergeAll(IdGenerator.layer, NodeSecretHasher(pepper), NodeCrypto.layerDigest).pipe(Layer.provideMerge(SecureRandom.layer))
