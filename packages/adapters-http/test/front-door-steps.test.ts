import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { defaultOptions, seedKey, send } from "./harness.ts"
import { TestAppUnderTest } from "./test-api.ts"

const limit = 3
const limited = TestAppUnderTest({ ...defaultOptions, rateLimit: { limit, window: "1 minute" } })
const body = JSON.stringify({ message: "hi" })
const remaining = (reply: { readonly headers: Readonly<Record<string, string | undefined>> }) =>
  /remaining=(\d+)/.exec(reply.headers["ratelimit"] ?? "")?.[1]

describe("the /api/v1 gate, one step in the order its declaration states", () => {
  it.effect("authentication comes first: a refused credential is not counted against anyone and carries no RateLimit headers", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      for (let i = 0; i < limit + 1; i++) {
        const refused = yield* send("GET", "/api/v1/test/items", { key: `${key}x` })
        assert.strictEqual(refused.status, 401)
        assert.isUndefined(refused.headers["ratelimit"])
      }
      const first = yield* send("GET", "/api/v1/test/items", { key })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(remaining(first), String(limit - 1))
    }).pipe(Effect.provide(limited)))

  it.effect("the rate limit comes before the permission check: a refused permission is counted, then limited", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      for (let i = 0; i < limit; i++) {
        const refused = yield* send("POST", "/api/v1/test/echo", { key, body })
        assert.strictEqual(refused.status, 403)
        assert.strictEqual(refused.body.code, "insufficient_scope")
        assert.strictEqual(remaining(refused), String(limit - 1 - i))
      }
      const over = yield* send("POST", "/api/v1/test/echo", { key, body })
      assert.strictEqual(over.status, 429)
      assert.strictEqual(over.body.code, "rate_limited")
    }).pipe(Effect.provide(limited)))

  it.effect("request validation comes last: a bad query from a permitted key is counted, then refused 400", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const invalid = yield* send("GET", "/api/v1/test/items?limit=0", { key })
      assert.strictEqual(invalid.status, 400)
      assert.strictEqual(invalid.body.code, "invalid_request")
      assert.strictEqual(remaining(invalid), String(limit - 1))
    }).pipe(Effect.provide(limited)))
})
