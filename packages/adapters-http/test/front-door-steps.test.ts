import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import {
  Api,
  Authorization,
  AuthorizationLive,
  NoStore,
  NoStoreLive,
  RateLimit,
  RateLimiterMemory,
  RateLimitLive,
  RequestValidation,
  RequestValidationLive
} from "../src/index.ts"
import { defaultOptions, seedKey, send } from "./harness.ts"
import { TestAppUnderTest } from "./test-api.ts"

const limit = 3
const limited = TestAppUnderTest({ ...defaultOptions, rateLimit: { limit, window: "1 minute" } })
const body = JSON.stringify({ message: "hi" })
// A route of the contract as the middleware sees it when the route is built.
const routeOf = (groupId: string, endpointId: string) => {
  let found: { readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top } | undefined
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      if (group.identifier === groupId && endpoint.identifier === endpointId) found = { endpoint, group }
    }
  })
  return found
}

const remaining = (reply: { readonly headers: Readonly<Record<string, string | undefined>> }) =>
  /remaining=(\d+)/.exec(reply.headers["ratelimit"] ?? "")?.[1]

describe("a route's front door, one step in the contract's order", () => {
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

  it("behind an authentication middleware, the rest of the chain hands the route over untouched (the door runs it)", () =>
    Effect.gen(function*() {
      const route = Effect.succeed(HttpServerResponse.empty())
      const behindDoor = routeOf("mobileWorkspace", "getUsage")
      assert.isDefined(behindDoor)
      assert.strictEqual((yield* RateLimit)(route, behindDoor), route)
      assert.strictEqual((yield* Authorization)(route, behindDoor), route)
      assert.strictEqual((yield* RequestValidation)(route, behindDoor), route)
      assert.strictEqual((yield* NoStore)(route, behindDoor), route)
      // Where no authentication guards the route (sign-in), validation and no-store act on their own.
      const alone = routeOf("auth", "signIn")
      assert.isDefined(alone)
      assert.notStrictEqual((yield* RequestValidation)(route, alone), route)
      assert.notStrictEqual((yield* NoStore)(route, alone), route)
    }).pipe(
      Effect.provide(Layer.mergeAll(AuthorizationLive, RequestValidationLive, NoStoreLive, RateLimitLive(defaultOptions.rateLimit).pipe(Layer.provide(RateLimiterMemory)))),
      Effect.runPromise
    ))
})
