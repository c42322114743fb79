import { assert, describe, it } from "@effect/vitest"
import { looksLikeApiKey, mintApiKey, parseApiKey, SecureRandom } from "@atrium/domain"
import { Effect, Option, Redacted } from "effect"

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

describe("API key format", () => {
  it.effect("every minted key parses, carries ≥ 192 random bits, and differs from the last", () =>
    Effect.gen(function*() {
      const seen = new Set<string>()
      for (let i = 0; i < 500; i++) {
        const minted = yield* mintApiKey(i % 2 === 0 ? "live" : "test")
        const text = Redacted.value(minted.plaintext)
        assert.deepStrictEqual(parseApiKey(minted.plaintext), Option.some(minted.environment))
        assert.isTrue(looksLikeApiKey(text))
        // 33 base62 characters hold log2(62^33) ≈ 196 bits.
        assert.strictEqual(text.length, `sk_${minted.environment}_`.length + 33 + 6)
        assert.isFalse(seen.has(text))
        seen.add(text)
      }
    }).pipe(Effect.provide(SecureRandom.layer)))

  it.effect("any single-character change is caught by the checksum, offline", () =>
    Effect.gen(function*() {
      const minted = yield* mintApiKey("live")
      const text = Redacted.value(minted.plaintext)
      for (let position = "sk_live_".length; position < text.length; position++) {
        for (const replacement of ["0", "Z", "z"]) {
          if (text[position] === replacement) continue
          const changed = text.slice(0, position) + replacement + text.slice(position + 1)
          assert.isTrue(Option.isNone(parseApiKey(Redacted.make(changed))), `accepted ${changed}`)
        }
      }
    }).pipe(Effect.provide(SecureRandom.layer)))

  it("random noise in the key alphabet is refused", () => {
    for (let i = 0; i < 2_000; i++) {
      const noise = Array.from({ length: 39 }, () => alphabet[Math.floor(Math.random() * 62)]).join("")
      assert.isTrue(Option.isNone(parseApiKey(Redacted.make(`sk_live_${noise}`))))
    }
  })

  it("other shapes are refused: wrong prefix, environment, length, characters", () => {
    for (const text of ["", "sk_live_", "pk_live_" + "a".repeat(39), "sk_prod_" + "a".repeat(39), "sk_live_" + "a".repeat(38), "sk_live_" + "a".repeat(38) + "!", " sk_live_" + "a".repeat(39)]) {
      assert.isTrue(Option.isNone(parseApiKey(Redacted.make(text))), text)
    }
  })
})
