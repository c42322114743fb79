import { Entitlements, Feature, Usage, type WorkspaceId } from "@atrium/domain"
import { systemPrincipal } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Schema } from "effect"
import { AppUnderTest, send, sendJson, seedKey } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"
import { records } from "./json.ts"

const task = { model: "atrium-local-1", input: { prompt: "hello" } }

const entitled = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    yield* (yield* Entitlements).grant(systemPrincipal(workspaceId), { feature: Feature.make("ai.basic"), source: "plan" })
    yield* (yield* Usage).addCredits(systemPrincipal(workspaceId), 1_000_000)
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

  const hourly = { name: "h", cron: "0 0 1 1 *", timezone: "UTC", task: { model: "atrium-local-1", input: { prompt: "p" } } }

  it.effect("a maxRuns past storage or a time outside years 1–9999 is 400 invalid_request on POST and PATCH, v1 and mobile, never 500", () =>
    Effect.gen(function*() {
      const mine = yield* seedKey({ scopes: ["read", "schedules:write"] })
      yield* entitled(mine.workspace.id)
      const team = yield* seedTeam
      yield* entitled(team.workspaceId)
      for (const [base, key] of [["/api/v1/schedules", mine.key], ["/api/mobile/schedules", team.admin.token]] as const) {
        for (const extra of [{ maxRuns: 2147483648 }, { startsAt: "-271821-04-20T00:00:00.000Z" }, { endsAt: "+275760-09-13T00:00:00.000Z" }]) {
          const refused = yield* sendJson("POST", base, key, { ...hourly, ...extra })
          assert.strictEqual(refused.status, 400, `${base} ${JSON.stringify(extra)}: ${refused.text}`)
          assert.strictEqual(refused.body.code, "invalid_request")
        }
        const created = yield* sendJson("POST", base, key, hourly)
        assert.strictEqual(created.status, 201, created.text)
        for (const extra of [{ endsAt: "-271821-04-20T00:00:00.000Z" }, { maxRuns: 2147483648 }]) {
          const patched = yield* sendJson("PATCH", `${base}/${String(created.body.id)}`, key, extra)
          assert.strictEqual(patched.status, 400, `${base} PATCH ${JSON.stringify(extra)}: ${patched.text}`)
          assert.strictEqual(patched.body.code, "invalid_request")
        }
      }
    }))

  it.effect("a cron of 6,000 characters is 400 invalid_request naming cron; a model the workspace lacks is 403 not_entitled on POST and PATCH", () =>
    Effect.gen(function*() {
      const mine = yield* seedKey({ scopes: ["read", "schedules:write"] })
      yield* entitled(mine.workspace.id)
      const long = `0 9 * * ${"1,".repeat(2996)}1`
      assert.strictEqual(long.length, 6001)
      const tooLong = yield* sendJson("POST", "/api/v1/schedules", mine.key, { ...hourly, cron: long })
      assert.strictEqual(tooLong.status, 400, tooLong.text)
      assert.deepStrictEqual(records(tooLong.body.errors).map((e) => e.path), [["payload", "cron"]])
      const preview = yield* seedTeam
      const previewed = yield* send("GET", `/api/mobile/schedules/preview?cron=${encodeURIComponent(long)}&timezone=UTC`, { key: preview.member.token })
      assert.strictEqual(previewed.status, 400, previewed.text)

      const advanced = { model: "gpt-4o", input: { prompt: "p" } }
      const refused = yield* sendJson("POST", "/api/v1/schedules", mine.key, { ...hourly, task: advanced })
      assert.strictEqual(refused.status, 403, refused.text)
      assert.deepInclude(refused.body, { code: "not_entitled" })
      const listed = yield* send("GET", "/api/v1/schedules", { key: mine.key })
      assert.strictEqual(records(listed.body.data).length, 0)
      const created = yield* sendJson("POST", "/api/v1/schedules", mine.key, hourly)
      const patched = yield* sendJson("PATCH", `/api/v1/schedules/${String(created.body.id)}`, mine.key, { task: advanced })
      assert.strictEqual(patched.status, 403, patched.text)
      assert.deepInclude(patched.body, { code: "not_entitled" })
    }))

  // Extreme numbers and times, generated from schemas: each answer is a 2xx or a 400 problem, never a 500.
  const extremeNumber = Schema.Union([
    Schema.Int,
    Schema.Number,
    Schema.Literals([0, -1, 1, 1_000_000, 1_000_001, 2147483647, 2147483648, -2147483649, 9007199254740991, 9007199254740993, 1e21, 1.5])
  ])
  const extremeTime = Schema.Union([
    Schema.Int.check(Schema.isBetween({ minimum: -8_640_000_000_000_000, maximum: 8_640_000_000_000_000 })),
    Schema.Literals([
      "-271821-04-20T00:00:00.000Z",
      "+275760-09-13T00:00:00.000Z",
      "-000001-12-31T23:59:59.999Z",
      "0000-01-01T00:00:00.000Z",
      "0001-01-01T00:00:00.000Z",
      "9999-12-31T23:59:59.999Z",
      "+010000-01-01T00:00:00.000Z"
    ])
  ])
  const timeText = (time: number | string) => typeof time === "string" ? time : DateTime.formatIso(DateTime.makeUnsafe(time))

  it.effect.prop(
    "extreme maxRuns, startsAt and endsAt never answer 500, on create or change",
    { maxRuns: extremeNumber, startsAt: extremeTime, endsAt: extremeTime },
    ({ endsAt, maxRuns, startsAt }) =>
      Effect.gen(function*() {
        const mine = yield* seedKey({ scopes: ["read", "schedules:write"] })
        yield* entitled(mine.workspace.id)
        const created = yield* sendJson("POST", "/api/v1/schedules", mine.key, { ...hourly, maxRuns, startsAt: timeText(startsAt), endsAt: timeText(endsAt) })
        assert.include([201, 400], created.status, created.text)
        const target = created.status === 201 ? created : yield* sendJson("POST", "/api/v1/schedules", mine.key, hourly)
        assert.strictEqual(target.status, 201, target.text)
        for (const patch of [{ maxRuns }, { startsAt: timeText(startsAt) }, { endsAt: timeText(endsAt) }]) {
          const patched = yield* sendJson("PATCH", `/api/v1/schedules/${String(target.body.id)}`, mine.key, patch)
          assert.include([200, 400], patched.status, `${JSON.stringify(patch)}: ${patched.text}`)
        }
      }),
    { timeout: 120_000, arbitrary: { runs: 60 } }
  )
})
