import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AppUnderTest, send, sendJson } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"
import { member, records } from "./json.ts"

const device = (n: number) => ({ expoPushToken: `ExponentPushToken[phone${n}aaaaaaaaaaaaaaaaa]`, platform: "ios", appVersion: "1.2.3", locale: "en-GB" })

describe("/api/mobile feature requests", () => {
  it.effect("members submit, vote once, see possible duplicates; the 11th request in a day is 429 with Retry-After", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const created = yield* sendJson("POST", "/api/mobile/feature-requests", team.member.token, { title: "Dark mode for the dashboard", details: "Please" })
      assert.strictEqual(created.status, 201, created.text)
      const id = String(member(created.body.featureRequest, "id"))
      assert.match(id, /^fr_/)
      assert.deepStrictEqual(member(created.body.featureRequest, "author"), { name: "member" })
      assert.isUndefined(member(created.body.featureRequest, "workspaceId"), "authors are shown by name only")
      for (const _ of [1, 2]) {
        const voted = yield* send("PUT", `/api/mobile/feature-requests/${id}/vote`, { key: team.admin.token })
        assert.strictEqual(voted.status, 200, voted.text)
        assert.strictEqual(voted.body.voteCount, 1)
        assert.strictEqual(voted.body.viewerHasVoted, true)
      }
      const asOwner = yield* send("GET", `/api/mobile/feature-requests/${id}`, { key: team.owner.token })
      assert.strictEqual(asOwner.body.viewerHasVoted, false)
      const similar = yield* sendJson("POST", "/api/mobile/feature-requests", team.member.token, { title: "Dashboard dark mode" })
      assert.deepStrictEqual(records(similar.body.possibleDuplicates).map((d) => member(d.featureRequest, "id")), [id])
      for (let n = 0; n < 8; n++) {
        assert.strictEqual((yield* sendJson("POST", "/api/mobile/feature-requests", team.member.token, { title: `Idea number ${n}` })).status, 201)
      }
      const limited = yield* sendJson("POST", "/api/mobile/feature-requests", team.member.token, { title: "One more idea" })
      assert.strictEqual(limited.status, 429, limited.text)
      assert.strictEqual(limited.body.code, "rate_limited")
      assert.isTrue(Number(limited.headers["retry-after"]) > 0)
      // The RateLimit headers describe the daily limit that refused, not the request limiter's budget.
      assert.strictEqual(limited.headers["ratelimit-policy"], "10;w=86400")
      assert.strictEqual(limited.headers["ratelimit"], `limit=10, remaining=0, reset=${limited.headers["retry-after"]}`)
      const board = yield* send("GET", "/api/mobile/feature-requests?sort=top&limit=1", { key: team.owner.token })
      assert.strictEqual(board.status, 200)
      assert.strictEqual(records(board.body.data)[0]?.id, id)
      assert.isString(board.body.nextCursor)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("bad titles and unknown ids are 4xx problems", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      assert.strictEqual((yield* sendJson("POST", "/api/mobile/feature-requests", team.member.token, { title: "ab" })).status, 400)
      assert.strictEqual((yield* sendJson("POST", "/api/mobile/feature-requests", team.member.token, { title: "Valid title", extra: 1 })).status, 400)
      assert.strictEqual((yield* send("GET", "/api/mobile/feature-requests/fr_nothinghere", { key: team.member.token })).status, 404)
      assert.strictEqual((yield* send("GET", "/api/mobile/feature-requests", { key: "" })).status, 401)
    }).pipe(Effect.provide(AppUnderTest())))
})

describe("/api/mobile push devices and preferences", () => {
  it.effect("each user reaches only their own devices; signing out removes the session's device", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const put = yield* sendJson("PUT", "/api/mobile/push-devices/phone-1", team.member.token, device(1))
      assert.strictEqual(put.status, 200, put.text)
      // The admin names the same installation: they register their own device, never touch the member's.
      assert.strictEqual((yield* sendJson("PUT", "/api/mobile/push-devices/phone-1", team.admin.token, device(2))).status, 200)
      assert.strictEqual((yield* send("DELETE", "/api/mobile/push-devices/phone-1", { key: team.admin.token })).status, 204)
      const mine = yield* send("GET", "/api/mobile/push-devices", { key: team.member.token })
      assert.deepStrictEqual(records(mine.body.data).map((d) => d.installationId), ["phone-1"])
      // A token registered by another user moves to them.
      assert.strictEqual((yield* sendJson("PUT", "/api/mobile/push-devices/tablet", team.owner.token, device(1))).status, 200)
      assert.deepStrictEqual(records((yield* send("GET", "/api/mobile/push-devices", { key: team.member.token })).body.data), [])
      assert.strictEqual((yield* send("POST", "/api/auth/sign-out", { key: team.owner.token })).status, 204)
      assert.deepStrictEqual(records((yield* send("GET", "/api/mobile/push-devices", { key: team.admin.token })).body.data), [])
      assert.strictEqual((yield* sendJson("PUT", "/api/mobile/push-devices/phone-1", team.member.token, { ...device(3), expoPushToken: "not-a-token" })).status, 400)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("preferences default to on, are saved per user, and say push is off without a token", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const initial = yield* send("GET", "/api/mobile/notification-preferences", { key: team.member.token })
      assert.strictEqual(initial.status, 200, initial.text)
      assert.strictEqual(initial.body.pushEnabled, false)
      assert.strictEqual(member(initial.body.preferences, "invitations"), true)
      const next = { ai_tasks: false, invitations: true, feature_requests: false, billing: true, schedules: true }
      const saved = yield* sendJson("PUT", "/api/mobile/notification-preferences", team.member.token, next)
      assert.deepStrictEqual(saved.body.preferences, next)
      assert.strictEqual(member((yield* send("GET", "/api/mobile/notification-preferences", { key: team.admin.token })).body.preferences, "ai_tasks"), true)
      assert.strictEqual((yield* sendJson("PUT", "/api/mobile/notification-preferences", team.member.token, { ai_tasks: false })).status, 400)
      const organization = yield* send("GET", "/api/mobile/organization", { key: team.member.token })
      assert.strictEqual(member(organization.body.features, "push"), false)
    }).pipe(Effect.provide(AppUnderTest())))
})
