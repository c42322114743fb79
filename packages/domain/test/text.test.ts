import { assert, describe, it } from "@effect/vitest"
import { isStorableText, Text } from "@atrium/domain"
import { Schema } from "effect"

describe("Text: the one string rule of every input", () => {
  it("refuses NUL and lone surrogates, keeps every well-formed string", () => {
    for (const bad of ["\u0000", "a\u0000", "\uD800", "\uDC00", "a\uD83Db", "\uDBFF\uDBFF"]) {
      assert.isFalse(isStorableText(bad), JSON.stringify(bad))
      assert.isTrue(Schema.decodeUnknownExit(Text)(bad)._tag === "Failure", JSON.stringify(bad))
    }
    for (const good of ["", "plain", "😀", "e\u0301", "\u202E", "\uFEFF\u200B", "\uFFFF", "𝕏".repeat(1000)]) {
      assert.isTrue(isStorableText(good), JSON.stringify(good))
      assert.strictEqual(Schema.decodeUnknownSync(Text)(good), good)
    }
  })
})
