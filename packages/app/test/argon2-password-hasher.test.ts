import { assert, it } from "@effect/vitest"
import { PasswordHasher } from "@atrium/domain"
import { Effect, Redacted } from "effect"
import { argon2Sync } from "node:crypto"
import { PasswordHasherArgon2 } from "../src/argon2-password-hasher.ts"

it.live("hashes in PHC format and verifies only the right password, in similar time for the dummy", () =>
  Effect.gen(function*() {
    const hasher = yield* PasswordHasher
    const stored = yield* hasher.hash(Redacted.make("correct horse battery"))
    assert.match(stored, /^\$argon2id\$v=19\$m=12288,t=3,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    assert.isTrue(yield* hasher.verify(Redacted.make("correct horse battery"), stored))
    assert.isFalse(yield* hasher.verify(Redacted.make("correct horse batterz"), stored))
    assert.isFalse(yield* hasher.verify(Redacted.make("x"), "garbage"))
    assert.isFalse(yield* hasher.verify(Redacted.make("x"), stored.replace("m=12288", "m=99999999")))
    const t0 = performance.now()
    yield* hasher.verify(Redacted.make("wrong password"), stored)
    const t1 = performance.now()
    assert.isFalse(yield* hasher.verifyDummy(Redacted.make("wrong password")))
    const t2 = performance.now()
    // The dummy check runs the same Argon2id work: within a generous factor of a real one even on a busy machine.
    const ratio = (t2 - t1) / (t1 - t0)
    assert.isAbove(ratio, 0.3)
    assert.isBelow(ratio, 3.5)
    const again = yield* hasher.hash(Redacted.make("correct horse battery"))
    assert.notStrictEqual(again, stored)
  }).pipe(Effect.provide(PasswordHasherArgon2)))

// The parameters earlier versions stored (19 MiB, 2 passes; then 46 MiB, 1 pass) are read back from each string.
for (const earlier of [{ memory: 19_456, passes: 2 }, { memory: 47_104, passes: 1 }]) {
  it.live(`a hash stored with earlier parameters (m=${earlier.memory}, t=${earlier.passes}) still verifies`, () =>
    Effect.gen(function*() {
      const hasher = yield* PasswordHasher
      const salt = Buffer.from("0123456789abcdef")
      const tag = argon2Sync("argon2id", { message: "correct horse battery", nonce: salt, ...earlier, parallelism: 1, tagLength: 32 })
      const b64 = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "")
      const stored = `$argon2id$v=19$m=${earlier.memory},t=${earlier.passes},p=1$${b64(salt)}$${b64(tag)}`
      assert.isTrue(yield* hasher.verify(Redacted.make("correct horse battery"), stored))
      assert.isFalse(yield* hasher.verify(Redacted.make("correct horse batterz"), stored))
    }).pipe(Effect.provide(PasswordHasherArgon2)))
}
