import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option } from "effect"
import { ConnectionError, SqlError, SqlSyntaxError, StatementTimeoutError, UniqueViolation, UnknownError } from "effect/sql/SqlError"
import { decodeCursor, encodeCursor, isUnavailable } from "../src/index.ts"

const unknownWithState = (code: string) =>
  new SqlError({ reason: new UnknownError({ cause: Object.assign(new Error("server says no"), { code }) }) })

describe("isUnavailable", () => {
  it("treats outages and retryable failures as Unavailable", () => {
    assert.isTrue(isUnavailable(new SqlError({ reason: new ConnectionError({ cause: new Error("ECONNREFUSED") }) })))
    assert.isTrue(isUnavailable(new SqlError({ reason: new StatementTimeoutError({ cause: new Error("timeout") }) })))
    assert.isTrue(isUnavailable(unknownWithState("57014"))) // query_canceled (statement_timeout), should it arrive unclassified
    assert.isTrue(isUnavailable(unknownWithState("57P01"))) // admin_shutdown
    assert.isTrue(isUnavailable(unknownWithState("57P03"))) // cannot_connect_now
    assert.isTrue(isUnavailable(unknownWithState("53300"))) // too_many_connections
  })

  it("treats bugs as bugs", () => {
    assert.isFalse(isUnavailable(new SqlError({ reason: new SqlSyntaxError({ cause: new Error("syntax") }) })))
    assert.isFalse(isUnavailable(new SqlError({ reason: new UniqueViolation({ cause: new Error("dup"), constraint: "x" }) })))
    assert.isFalse(isUnavailable(unknownWithState("22P02"))) // invalid_text_representation
    assert.isFalse(isUnavailable(new SqlError({ reason: new UnknownError({ cause: new Error("no code") }) })))
  })
})

describe("cursors", () => {
  it("round-trip a position and match the domain's Cursor pattern", () => {
    const position = { createdAt: DateTime.makeUnsafe(Date.UTC(2030, 0, 1, 12, 0, 0, 123)), id: "key_4xQ9aZ1b7HkP0mVcT3sLeR" }
    const cursor = encodeCursor(position)
    assert.match(cursor, /^[A-Za-z0-9_-]{1,200}$/)
    assert.deepStrictEqual(decodeCursor(cursor), Option.some(position))
  })

  it("read anything else as no cursor", () => {
    for (const text of [undefined, "", "12", "not a cursor", "a".repeat(201), Buffer.from("abc.key_x").toString("base64url"), Buffer.from("1.x y").toString("base64url")]) {
      assert.isTrue(Option.isNone(decodeCursor(text)), String(text))
    }
  })
})
