import { Context, Effect, Layer, Redacted, Ref } from "effect"
import { PasswordHasher } from "../identity/index.ts"

/** What the test password hasher was asked to do, in order, so tests can prove every sign-in path costs one hash. */
export class PasswordHasherCalls extends Context.Service<PasswordHasherCalls, Ref.Ref<ReadonlyArray<"hash" | "verify" | "verifyDummy">>>()(
  "@atrium/domain/testing/PasswordHasherCalls"
) {}

const toHex = (buffer: ArrayBuffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("")
const sha256 = (text: string) => Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(Effect.map(toHex))

/**
 * A fast stand-in for Argon2id: salted SHA-256 in a PHC-like `$test$<salt>$<hex>` string. Never for production —
 * it is fast on purpose. Records every call in `PasswordHasherCalls`.
 */
export const PasswordHasherMemory = Layer.effect(
  PasswordHasher,
  Effect.gen(function*() {
    const calls = yield* PasswordHasherCalls
    const record = (call: "hash" | "verify" | "verifyDummy") => Ref.update(calls, (all) => [...all, call])
    const derive = (salt: string, password: Redacted.Redacted<string>) => sha256(`${salt}:${Redacted.value(password)}`)
    return PasswordHasher.of({
      hash: (password) =>
        Effect.gen(function*() {
          yield* record("hash")
          const salt = toHex(globalThis.crypto.getRandomValues(new Uint8Array(16)).buffer)
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
).pipe(Layer.provideMerge(Layer.effect(PasswordHasherCalls, Ref.make<ReadonlyArray<"hash" | "verify" | "verifyDummy">>([]))))
