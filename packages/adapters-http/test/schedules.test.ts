import { Entitlements, Feature, systemActor, Usage } from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { AppUnderTest, send, sendJson, seedKey } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"
import { records } from "./json.ts"

const actor = systemActor("test")
const task = { model: "atrium-local-1", input: { prompt: "hello" } }

const entitled = (workspaceId: Parameters<Usage["Service"]["addCredits"]>[0]) =>
  Effect.gen(function*() {
    yield* (yield* Entitlements).grant({ workspaceId, feature: Feature.make("ai.basic"), source: "plan", actor })
    yield* (yield* Usage).addCredits(workspaceId, 1_000_000, actor)
  })

layer(AppUnderTest(), { timeout: "30 seconds" })("schedules over HTTP", (it) => {
  it.effect("/api/v1: create, read, run now, runs; another workspace's schedule is 404", () =>
    Effect.gen(function*() {
      const mine = yield* seedKey({ scopes: ["read", "schedules:write"] })
      yield* entitled(mine.workspace.id)
      const created = yield* sendJson("POST", "/api/v1/schedules", mine.key, { name: "Weekly", cron: "0 9 * * 1", timezone: "Europe/Berlin", task })
      assert.strictEqual(created.status, 201, created.text)
      const id = String(created.body.id)
      assert.match(id, /^sch_/)
      assert.strictEqual(created.body.status, "active")
      const listed = yield* send("GET", "/api/v1/schedules", { key: mine.key })
      assert.deepStrictEqual(records(listed.body.data).map((s) => s.id), [id])
      const run = yield* send("POST", `/api/v1/schedules/${id}/run-now`, { key: mine.key })
      assert.strictEqual(run.status, 202, run.text)
      assert.strictEqual(run.body.status, "started")
      const runs = yield* send("GET", `/api/v1/schedules/${id}/runs`, { key: mine.key })
      assert.deepStrictEqual(records(runs.body.data).map((r) => [r.status, r.taskId]), [["started", run.body.taskId]])

      const theirs = yield* seedKey({ name: "Other", scopes: ["write"] })
      for (const [method, path] of [
        ["GET", `/api/v1/schedules/${id}`],
        ["DELETE", `/api/v1/schedules/${id}`],
        ["POST", `/api/v1/schedules/${id}/pause`],
        ["POST", `/api/v1/schedules/${id}/run-now`],
        ["GET", `/api/v1/schedules/${id}/runs`]
      ] as const) {
        const reply = yield* send(method, path, { key: theirs.key })
        assert.strictEqual(reply.status, 404, `${method} ${path}`)
        assert.strictEqual(reply.body.code, "not_found")
      }
      const patched = yield* sendJson("PATCH", `/api/v1/schedules/${id}`, theirs.key, { name: "mine" })
      assert.strictEqual(patched.status, 404)
    }))

  it.effect("/api/v1: a key without schedules:write is 403 insufficient_scope; bad cron or zone is 400 naming the field", () =>
    Effect.gen(function*() {
      const reader = yield* seedKey({ scopes: ["read"] })
      const refused = yield* sendJson("POST", "/api/v1/schedules", reader.key, { name: "x", cron: "0 9 * * *", timezone: "UTC", task })
      assert.strictEqual(refused.status, 403)
      assert.deepInclude(refused.body, { code: "insufficient_scope", requiredScope: "schedules:write" })
      const writer = yield* seedKey({ scopes: ["schedules:write"] })
      for (const [cron, timezone, field] of [["0 9 * *", "UTC", "cron"], ["0 9 * * *", "Mars/Base", "timezone"]] as const) {
        const bad = yield* sendJson("POST", "/api/v1/schedules", writer.key, { name: "x", cron, timezone, task })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.strictEqual(bad.body.code, "invalid_request")
        assert.deepStrictEqual(records(bad.body.errors).map((e) => e.path), [["payload", field]])
      }
    }))

  it.effect("/api/mobile: preview gives the next 5 instants; a bad cron or zone is 400 with errors[].path; members read, admins change", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      yield* entitled(team.workspaceId)
      const preview = yield* send("GET", "/api/mobile/schedules/preview?cron=30%202%20*%20*%20*&timezone=Europe/Berlin", { key: team.member.token })
      assert.strictEqual(preview.status, 200, preview.text)
      assert.strictEqual(Array.isArray(preview.body.next) ? preview.body.next.length : 0, 5)
      for (const [query, field] of [["cron=61%20*%20*%20*%20*&timezone=UTC", "cron"], ["cron=0%209%20*%20*%20*&timezone=Nowhere/City", "timezone"]] as const) {
        const bad = yield* send("GET", `/api/mobile/schedules/preview?${query}`, { key: team.member.token })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.deepStrictEqual(records(bad.body.errors).map((e) => e.path), [["query", field]])
      }
      const byMember = yield* sendJson("POST", "/api/mobile/schedules", team.member.token, { name: "x", cron: "0 9 * * *", timezone: "UTC", task })
      assert.strictEqual(byMember.status, 403)
      assert.strictEqual(byMember.body.code, "forbidden")
      const byAdmin = yield* sendJson("POST", "/api/mobile/schedules", team.admin.token, { name: "x", cron: "0 9 * * *", timezone: "UTC", task })
      assert.strictEqual(byAdmin.status, 201, byAdmin.text)
      const read = yield* send("GET", `/api/mobile/schedules/${String(byAdmin.body.id)}`, { key: team.member.token })
      assert.strictEqual(read.status, 200)
      const pausedByMember = yield* send("POST", `/api/mobile/schedules/${String(byAdmin.body.id)}/pause`, { key: team.member.token })
      assert.strictEqual(pausedByMember.status, 403)
    }))
})
