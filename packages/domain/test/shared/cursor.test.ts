import { comparePositions, Cursor, decodeCursor, encodeCursor, encodeRankedCursor } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, DateTime, Option, Schema } from "effect"
import { Base64Url } from "effect/encoding"
import { decodeRankedCursor, isCursorText } from "../../src/shared/cursor.ts"

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

describe("cursor codec properties", () => {
  // Positions as pages produce them: a time from 1970 to 9999 and an id as the id generator spells it.
  const millis = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }))
  const idChar = Schema.Literals([..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"])
  const id = Arbitrary.array(Arbitrary.schema(idChar), { minLength: 1, maxLength: 100 }).pipe(Arbitrary.map((chars) => chars.join("")))
  const rank = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 999_999_999_999_999 }))

  it.prop("every position round-trips, and its cursor is one the contract accepts", [millis, id], ([at, key]) => {
    const position = { createdAt: DateTime.makeUnsafe(at), id: key }
    const cursor = encodeCursor(position)
    assert.deepStrictEqual(decodeCursor(cursor), Option.some(position))
    assert.isTrue(isCursor(cursor))
    assert.isTrue(isCursorText(cursor))
  })

  it.prop("every ranked position round-trips", [rank, millis, id], ([votes, at, key]) => {
    const position = { createdAt: DateTime.makeUnsafe(at), id: key }
    assert.deepStrictEqual(decodeRankedCursor(encodeRankedCursor(votes, position)), Option.some({ rank: votes, position }))
  })

  // Arbitrary text, and base64url of arbitrary text (which passes the alphabet check and reaches the parser).
  const text = Schema.String
  it.prop("any other text decodes to nothing or to the one position whose cursor it is, and never throws", [text], ([raw]) => {
    for (const candidate of [raw, base64url(raw)]) {
      const decoded = decodeCursor(candidate)
      if (Option.isSome(decoded)) assert.strictEqual(encodeCursor(decoded.value), candidate)
      const ranked = decodeRankedCursor(candidate)
      if (Option.isSome(ranked)) assert.strictEqual(encodeRankedCursor(ranked.value.rank, ranked.value.position), candidate)
    }
  })

  it.prop("positions order by time, then by id, as their page order", [millis, id, millis, id], ([atA, idA, atB, idB]) => {
    const a = { createdAt: DateTime.makeUnsafe(atA), id: idA }
    const b = { createdAt: DateTime.makeUnsafe(atB), id: idB }
    const order = Math.sign(comparePositions(a, b))
    assert.strictEqual(order, -Math.sign(comparePositions(b, a)))
    assert.strictEqual(order === 0, atA === atB && idA === idB)
    if (atA !== atB) assert.strictEqual(order, Math.sign(atA - atB))
  })
})
