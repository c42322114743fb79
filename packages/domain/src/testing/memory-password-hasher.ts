import { Context, Effect, Layer, Redacted, Ref } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { PasswordHasher } from "../identity/index.ts"

/** What the test password hasher was asked to do, in order, so tests can prove every sign-in path costs one hash. */
export class PasswordHasherCalls extends Context.Service<PasswordHasherCalls, Ref.Ref<ReadonlyArray<"hash" | "verify" | "verifyDummy">>>()(
  "@atrium/domain/testing/PasswordHasherCalls"
) {}

const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
const encoder = new TextEncoder()

/**
 * A fast stand-in for Argon2id: salted SHA-256 in a PHC-like `$test$<salt>$<hex>` string. Never for production —
 * it is fast on purpose. Records every call in `PasswordHasherCalls`.
 */
export const PasswordHasherMemory = Layer.effect(
  PasswordHasher,
  Effect.gen(function*() {
    const calls = yield* PasswordHasherCalls
    const digest = yield* Digest.Digest
    const random = yield* SecureRandom.SecureRandom
    const sha256 = (text: string) => digest.digestHex(Digest.sha256, encoder.encode(text))
    const record = (call: "hash" | "verify" | "verifyDummy") => Ref.update(calls, (all) => [...all, call])
    const derive = (salt: string, password: Redacted.Redacted<string>) => sha256(`${salt}:${Redacted.value(password)}`)
    return PasswordHasher.of({
      hash: (password) =>
        Effect.gen(function*() {
          yield* record("hash")
          const salt = toHex(yield* random.randomBytes(16))
          return `$test$${salt}$${yield* derive(salt, password)}`
        }),
      verify: (password, stored) =>
        Effect.gen(function*() {
          yield* record("verify")
          const [, scheme, salt, hash] = stored.split("$")
          if (scheme !== "test" || salt === undefined || hash === undefined) return false
          return (yield* derive(salt, password)) === hash
        }),
      verifyDummy: (password) =>
        Effect.gen(function*() {
          yield* record("verifyDummy")
          yield* derive("dummy", password)
          const matched: false = false
          return matched
        })
    })
  })
).pipe(
  Layer.provide(Layer.merge(Digest.layerWebCrypto, SecureRandom.layerWebCrypto)),
  Layer.provideMerge(Layer.effect(PasswordHasherCalls, Ref.make<ReadonlyArray<"hash" | "verify" | "verifyDummy">>([])))
)
