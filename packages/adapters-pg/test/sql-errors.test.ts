import { assert, describe, it } from "@effect/vitest"
import { ConnectionError, SqlError, SqlSyntaxError, StatementTimeoutError, UniqueViolation, UnknownError } from "effect/sql/SqlError"
import { isUnavailable } from "../src/index.ts"

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
