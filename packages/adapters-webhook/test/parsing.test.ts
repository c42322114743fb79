import { assert, describe, it } from "@effect/vitest"
import { classifyNetworkError, maxRetryAfterSeconds, parseRetryAfter } from "@atrium/adapters-webhook"

const systemError = (code: string) => Object.assign(new Error(code), { code })

describe("Retry-After", () => {
  const now = Date.parse("2025-01-01T00:00:00Z")

  it("reads delta-seconds and HTTP-dates, clamps, and ignores junk", () => {
    assert.strictEqual(parseRetryAfter("7", now), 7)
    assert.strictEqual(parseRetryAfter(" 0 ", now), 0)
    assert.strictEqual(parseRetryAfter("Wed, 01 Jan 2025 00:02:00 GMT", now), 120)
    assert.strictEqual(parseRetryAfter("Tue, 31 Dec 2024 23:00:00 GMT", now), 0)
    assert.strictEqual(parseRetryAfter("Wednesday, 01-Jan-25 00:00:30 GMT", now), 30)
    assert.strictEqual(parseRetryAfter("99999999", now), maxRetryAfterSeconds)
    for (const junk of [undefined, "", "-5", "1.5", "soon", "2025-01-01T00:02:00Z", "Wed, garbage"]) {
      assert.isNull(parseRetryAfter(junk, now), String(junk))
    }
  })
})

describe("network error classification", () => {
  it("maps Node.js error codes onto attempt error kinds", () => {
    const table: ReadonlyArray<readonly [string, string]> = [
      ["ETIMEDOUT", "timeout"],
      ["ECONNREFUSED", "refused"],
      ["ENOTFOUND", "dns"],
      ["EAI_AGAIN", "dns"],
      ["ERR_TLS_CERT_ALTNAME_INVALID", "tls"],
      ["CERT_HAS_EXPIRED", "tls"],
      ["DEPTH_ZERO_SELF_SIGNED_CERT", "tls"],
      ["SELF_SIGNED_CERT_IN_CHAIN", "tls"],
      ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "tls"],
      ["ERR_SSL_WRONG_VERSION_NUMBER", "tls"],
      ["EPROTO", "tls"],
      ["ECONNRESET", "network"],
      ["EPIPE", "network"],
      ["EHOSTUNREACH", "network"]
    ]
    for (const [code, kind] of table) assert.strictEqual(classifyNetworkError(systemError(code)), kind, code)
    assert.strictEqual(classifyNetworkError(new Error("no code")), "network")
    assert.strictEqual(classifyNetworkError("not an error"), "network")
  })
})
