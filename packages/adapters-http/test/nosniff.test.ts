import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AppUnderTest, seedKey, send, sendJson } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"

describe("X-Content-Type-Options", () => {
  it.effect("every JSON and problem answer says nosniff: v1, mobile, auth, and errors of every kind", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const team = yield* seedTeam
      const replies = {
        "v1 (cached read)": yield* send("GET", "/api/v1/workspaces/current", { key }),
        "v1 list": yield* send("GET", "/api/v1/entitlements", { key }),
        "v1 openapi": yield* send("GET", "/api/v1/openapi"),
        "mobile": yield* send("GET", "/api/mobile/organization", { key: team.member.token }),
        "auth sign-up": yield* sendJson("POST", "/api/auth/sign-up", "", { email: "nosniff@example.com", password: "correct horse battery", name: "N" }),
        "auth session": yield* send("GET", "/api/auth/session", { key: team.member.token }),
        "401 missing credentials": yield* send("GET", "/api/v1/workspaces/current"),
        "401 wrong password": yield* sendJson("POST", "/api/auth/sign-in", "", { email: "nosniff@example.com", password: "wrong wrong wrong" }),
        "403 forbidden": yield* sendJson("POST", "/api/mobile/domains", team.member.token, { hostname: "app.example.com" }),
        "400 invalid body": yield* sendJson("POST", "/api/auth/sign-in", "", { email: 1 }),
        "404 route": yield* send("GET", "/api/v1/nothing-here", { key }),
        "405 method": yield* send("DELETE", "/api/v1/workspaces/current", { key }),
        "413 body": yield* send("POST", "/api/auth/sign-in", { body: "x".repeat(1024 * 1024 + 1) })
      }
      for (const [name, reply] of Object.entries(replies)) {
        assert.match(String(reply.headers["content-type"]), /^application\/(problem\+)?json/, name)
        assert.strictEqual(reply.headers["x-content-type-options"], "nosniff", name)
      }
      assert.deepStrictEqual(
        Object.values(replies).map((reply) => reply.status),
        [200, 200, 200, 200, 201, 200, 401, 401, 403, 400, 404, 405, 413]
      )
    }).pipe(Effect.provide(AppUnderTest())))
})
