import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RateLimitOptions } from "../src/index.ts"
import { AppUnderTest, defaultOptions, type Reply, send } from "./harness.ts"
import { freshEmail, password, seedTeam } from "./identity-harness.ts"
import { member } from "./json.ts"

const postJson = (path: string, body: unknown, token?: string) =>
  send("POST", path, { body: JSON.stringify(body), ...(token === undefined ? {} : { key: token }) })

const assertLimited = (reply: Reply) => {
  assert.strictEqual(reply.status, 429, reply.text)
  assert.strictEqual(reply.body.code, "rate_limited")
  assert.strictEqual(reply.headers["content-type"], "application/problem+json")
  assert.isAbove(Number(reply.headers["retry-after"]), 0)
  assert.strictEqual(reply.body.retryAfter, Number(reply.headers["retry-after"]))
}

const minute = (limit: number): RateLimitOptions => ({ limit, window: "1 minute" })

describe("throttles on the routes without a principal", () => {
  it.effect("sign-up: per email (email_taken cannot enumerate at speed) and per client address", () =>
    Effect.gen(function*() {
      const email = freshEmail("taken")
      assert.strictEqual((yield* postJson("/api/auth/sign-up", { email, password, name: "A" })).status, 201)
      assert.strictEqual((yield* postJson("/api/auth/sign-up", { email, password, name: "A" })).body.code, "email_taken")
      // The third attempt on one email is refused before the account is even looked up.
      assertLimited(yield* postJson("/api/auth/sign-up", { email: email.toUpperCase(), password, name: "A" }))
      assert.strictEqual((yield* postJson("/api/auth/sign-up", { email: freshEmail("new"), password, name: "B" })).status, 201)
      // The address has now made 4 attempts: its limit.
      assertLimited(yield* postJson("/api/auth/sign-up", { email: freshEmail("new"), password, name: "C" }))
    }).pipe(Effect.provide(AppUnderTest({
      ...defaultOptions,
      throttles: { signUp: { perEmail: minute(2), perAddress: minute(4) } }
    }))))

  it.effect("refresh: per client address, whatever the token", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* postJson("/api/auth/refresh", { refreshToken: `rt_guess${i}` })).status, 401)
      }
      assertLimited(yield* postJson("/api/auth/refresh", { refreshToken: "rt_guess3" }))
    }).pipe(Effect.provide(AppUnderTest({ ...defaultOptions, throttles: { refresh: { perAddress: minute(3) } } }))))

  it.effect("invitation accept: per session (token guessing), then per address", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      for (let i = 0; i < 2; i++) {
        assert.strictEqual((yield* postJson("/api/mobile/invitations/accept", { token: `inv_guess${i}` }, team.member.token)).status, 404)
      }
      assertLimited(yield* postJson("/api/mobile/invitations/accept", { token: "inv_guess2" }, team.member.token))
      // Another session from the same address still has its own allowance, until the address runs out.
      assert.strictEqual((yield* postJson("/api/mobile/invitations/accept", { token: "inv_guess3" }, team.admin.token)).status, 404)
      assertLimited(yield* postJson("/api/mobile/invitations/accept", { token: "inv_guess4" }, team.owner.token))
    }).pipe(Effect.provide(AppUnderTest({
      ...defaultOptions,
      throttles: { acceptInvitation: { perAddress: minute(4), perSession: minute(2) } }
    }))))

  it.effect("mobile routes: requests per session, session-only routes included", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* send("GET", "/api/mobile/usage", { key: team.member.token })).status, 200)
      assertLimited(yield* send("GET", "/api/mobile/organization", { key: team.member.token }))
      assert.strictEqual((yield* send("GET", "/api/mobile/organization", { key: team.owner.token })).status, 200)
      assert.match(String(member((yield* send("GET", "/api/auth/session", { key: team.admin.token })).body, "activeWorkspaceId")), /^ws_/)
    }).pipe(Effect.provide(AppUnderTest({ rateLimit: minute(3) }))))
})
