import { Context, Effect, Layer, Redacted } from "effect"
import { Aead, SecureRandom } from "effect/crypto"

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
const encoder = new TextEncoder()
const decoder = new TextDecoder()
// AES-GCM's standard nonce: 96 bits, random per seal.
const nonceBytes = 12

/** Port: seals secrets the server must read back later (webhook signing secrets, store and push tokens, mail links), so a database dump alone reveals nothing. */
export class SecretBox extends Context.Service<SecretBox, {
  /** AES-256-GCM under the server key: `v1.<base64 iv>.<base64 ciphertext+tag>`. */
  readonly seal: (secret: Redacted.Redacted<string>) => Effect.Effect<string>
  /** Opens a sealed value; a value sealed under another key is a defect (wrong server key), never a silent empty secret. */
  readonly open: (sealed: string) => Effect.Effect<Redacted.Redacted<string>>
}>()("@atrium/domain/SecretBox") {
  /** A box under a 32-byte key given as base64 (`effect/crypto`'s AEAD on Web Crypto). */
  static readonly layerWith = (key: Redacted.Redacted<string>) =>
    Layer.effect(
      SecretBox,
      Effect.gen(function*() {
        const raw = fromBase64(Redacted.value(key))
        if (raw.length !== 32) return yield* Effect.die(new Error("the secret key must be 32 bytes, base64-encoded"))
        const aead = yield* Aead.Aead
        const random = yield* SecureRandom.SecureRandom
        const aesKey = yield* Effect.orDie(Aead.key(Aead.aes256Gcm, raw))
        return SecretBox.of({
          seal: (secret) =>
            Effect.gen(function*() {
              const nonce = yield* random.randomBytes(nonceBytes)
              const sealed = yield* aead.encrypt(aesKey, encoder.encode(Redacted.value(secret)), { nonce })
              return `v1.${toBase64(nonce)}.${toBase64(sealed)}`
            }).pipe(Effect.orDie),
          open: (sealed) =>
            Effect.gen(function*() {
              const [version, nonce, data] = sealed.split(".")
              if (version !== "v1" || nonce === undefined || data === undefined) return yield* Effect.die(new Error("unknown sealed secret format"))
              const opened = yield* Effect.orDie(aead.decrypt(aesKey, fromBase64(data), { nonce: fromBase64(nonce) }))
              return Redacted.make(decoder.decode(opened), { label: "sealed secret" })
            })
        })
      })
    ).pipe(Layer.provide(Aead.layerWebCrypto.pipe(Layer.provideMerge(SecureRandom.layerWebCrypto))))

  /** A box under a fresh random key, for tests and in-memory use. */
  static readonly layerMemory = Layer.unwrap(
    SecureRandom.SecureRandom.pipe(
      Effect.flatMap((random) => random.randomBytes(32)),
      Effect.map((bytes) => SecretBox.layerWith(Redacted.make(toBase64(bytes))))
    )
  ).pipe(Layer.provide(SecureRandom.layerWebCrypto))
}
