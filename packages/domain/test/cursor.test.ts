import { Cursor, decodeCursor, encodeCursor } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option, Schema } from "effect"
import { Base64Url } from "effect/encoding"

const base64url = (text: string) => Base64Url.encode(text)
const isCursor = Schema.is(Cursor)

describe("cursors", () => {
  it("round-trip a position and match the contract's Cursor", () => {
    const position = { createdAt: DateTime.makeUnsafe(Date.UTC(2030, 0, 1, 12, 0, 0, 123)), id: "key_4xQ9aZ1b7HkP0mVcT3sLeR" }
    const cursor = encodeCursor(position)
    assert.match(cursor, /^[A-Za-z0-9_-]{1,200}$/)
    // The format the Postgres adapter always wrote: base64url of `<millis>.<id>`, unpadded.
    assert.strictEqual(cursor, base64url(`${Date.UTC(2030, 0, 1, 12, 0, 0, 123)}.key_4xQ9aZ1b7HkP0mVcT3sLeR`))
    assert.deepStrictEqual(decodeCursor(cursor), Option.some(position))
    assert.isTrue(isCursor(cursor))
  })

  it("read anything else as no cursor, and the contract refuses it (a 400, never a 500)", () => {
    const refused = [
      "",
      "12",
      "not a cursor",
      "a".repeat(201),
      base64url("abc.key_x"),
      base64url("1.x y"),
      // Year -271821 (the probe's cursor) and other dates no page ever produced.
      "LTg2NDAwMDAwMDAwMDAwMDAuZXZ0X3g",
      base64url("-1.evt_x"),
      base64url("8640000000000000.evt_x"),
      base64url(`${Date.UTC(10000, 0, 1)}.evt_x`),
      base64url("1e3.evt_x"),
      base64url("0001.evt_x") + "A",
      base64url("1.evt_\u0000x"),
      base64url(`1.${"x".repeat(101)}`)
    ]
    for (const text of [undefined, ...refused]) assert.isTrue(Option.isNone(decodeCursor(text)), String(text))
    for (const text of refused) assert.isFalse(isCursor(text), text)
  })

  it("one position has one cursor: other spellings of the same text are refused", () => {
    const cursor = encodeCursor({ createdAt: DateTime.makeUnsafe(1000), id: "evt_a" })
    assert.isTrue(Option.isSome(decodeCursor(cursor)))
    assert.isTrue(Option.isNone(decodeCursor(base64url("01000.evt_a"))))
  })
})
