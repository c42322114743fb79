import {
  AiTasks,
  CreateScheduleInput,
  CronExpression,
  CurrentSchedulePolicy,
  defaultSchedulePolicy,
  Entitlements,
  Feature,
  Members,
  ScheduleId,
  Schedules,
  UpdateScheduleInput,
  Usage
} from "@atrium/domain"
import { Domain, providerFails, providerHangs, ScriptedProvider, systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Layer, Option, Ref, Schema } from "effect"
import { team } from "../support/identity.ts"
import { body, entitledWorkspace, eventsOf, firePass, keyOf, runTasks, setTime, state, tasks } from "../support/schedules.ts"

describe("Schedules: access", () => {
  it.effect("another workspace's schedule is not found, for every operation", () =>
    Effect.gen(function*() {
      const schedules = yield* Schedules
      const mine = yield* entitledWorkspace()
      const theirs = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(theirs), body())
      const me = keyOf(mine)
      const attempts: ReadonlyArray<Effect.Effect<void, { readonly _tag: string }>> = [
        Effect.asVoid(schedules.get(me, created.id)),
        Effect.asVoid(schedules.update(me, created.id, { name: "mine now" })),
        schedules.remove(me, created.id),
        Effect.asVoid(schedules.pause(me, created.id)),
        Effect.asVoid(schedules.resume(me, created.id)),
        Effect.asVoid(schedules.runNow(me, created.id)),
        Effect.asVoid(schedules.runs(me, created.id, { limit: 10, cursor: undefined }))
      ]
      for (const attempt of attempts) {
        const error = yield* Effect.flip(attempt)
        assert.strictEqual(error._tag, "NotFound")
      }
      assert.strictEqual((yield* schedules.list(me, { limit: 10, cursor: undefined })).data.length, 0)
      // Untouched in its own workspace.
      assert.strictEqual((yield* schedules.get(keyOf(theirs), created.id)).name, "Weekly summary")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a key needs schedules:write to change and read to read; write implies both", () =>
    Effect.gen(function*() {
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const refused = yield* Effect.flip(schedules.create(keyOf(ws, ["read", "ai_tasks:write"]), body()))
      assert.deepInclude(refused, { _tag: "InsufficientScope", requiredScope: "schedules:write" })
      const created = yield* schedules.create(keyOf(ws, ["write"]), body())
      assert.deepInclude(yield* Effect.flip(schedules.get(keyOf(ws, ["schedules:write"]), created.id)), { requiredScope: "read" })
      assert.strictEqual((yield* schedules.get(keyOf(ws, ["read"]), created.id)).id, created.id)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("members read, only admins change", () =>
    Effect.gen(function*() {
      const schedules = yield* Schedules
      const { ownerPrincipal, join } = yield* team
      yield* (yield* Entitlements).grant(systemPrincipal(ownerPrincipal.workspaceId), { feature: Feature.make("ai.basic"), source: "plan" })
      const member = yield* join("member@example.com", "member")
      const admin = yield* join("admin@example.com", "admin")
      const created = yield* schedules.create(admin.principal, body())
      assert.deepStrictEqual(created.createdBy, { type: "user", id: admin.principal.userId })
      assert.strictEqual((yield* schedules.get(member.principal, created.id)).id, created.id)
      assert.strictEqual((yield* Effect.flip(schedules.create(member.principal, body())))._tag, "Forbidden")
      assert.strictEqual((yield* Effect.flip(schedules.pause(member.principal, created.id)))._tag, "Forbidden")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a run submits as the scheduler (the system narrowed to ai_tasks.submit) and its task is the creator's", () =>
    Effect.gen(function*() {
      const schedules = yield* Schedules
      const { ownerPrincipal, join } = yield* team
      yield* (yield* Entitlements).grant(systemPrincipal(ownerPrincipal.workspaceId), { feature: Feature.make("ai.basic"), source: "plan" })
      yield* (yield* Usage).addCredits(systemPrincipal(ownerPrincipal.workspaceId), 1_000_000)
      const admin = yield* join("admin@example.com", "admin")
      const created = yield* schedules.create(admin.principal, body())
      const run = yield* schedules.runNow(admin.principal, created.id)
      const taskId = Option.getOrUndefined(run.taskId)
      assert.isDefined(taskId)
      const task = (yield* state).aiTasks.get(taskId ?? "")
      assert.deepStrictEqual(task?.submittedBy, { type: "user", id: admin.principal.userId })
      assert.deepStrictEqual(task?.scheduleId, Option.some(created.id))
      // Nobody but the system names whom a task is for: a member (even an owner) is refused.
      const onBehalf = { model: "atrium-local-1", input: { prompt: "hello" }, onBehalfOf: created.createdBy }
      assert.strictEqual((yield* Effect.flip((yield* AiTasks).submit(ownerPrincipal, onBehalf)))._tag, "Forbidden")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("at most 50 schedules per workspace; bad cron, zone or model are invalid input", () =>
    Effect.gen(function*() {
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      for (let i = 0; i < 50; i++) yield* schedules.create(keyOf(ws), body({ name: `s${i}` }))
      assert.strictEqual((yield* Effect.flip(schedules.create(keyOf(ws), body())))._tag, "Conflict")
      const other = yield* entitledWorkspace()
      const bad = yield* Effect.flip(schedules.create(keyOf(other), body({ cron: "* * * * * *", timezone: "Nowhere/City" })))
      assert.strictEqual(bad._tag, "InvalidInput")
      assert.match(bad._tag === "InvalidInput" ? bad.detail : "", /^cron: .*; timezone: /)
      const model = yield* Effect.flip(schedules.create(keyOf(other), body({ task: { model: "gpt-9", input: { prompt: "x" } } })))
      assert.strictEqual(model._tag, "InvalidInput")
      assert.strictEqual((yield* Effect.flip(schedules.preview("0 9 * * *", "Mars/Base")))._tag, "InvalidInput")
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("Schedules: what is refused at once", () => {
  it.effect("a model the workspace is not entitled to is refused at creation and on update (not_entitled), as a task submission is", () =>
    Effect.gen(function*() {
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      // gpt-4o needs ai.advanced, which the workspace lacks: the submission's own refusal, before anything is stored.
      const advanced = { model: "gpt-4o", input: { prompt: "x" } }
      const direct = yield* Effect.flip((yield* AiTasks).submit(systemPrincipal(ws), { model: advanced.model, input: advanced.input }))
      assert.deepInclude(direct, { _tag: "NotEntitled", feature: "ai.advanced" })
      const created = yield* Effect.flip(schedules.create(keyOf(ws), body({ task: advanced })))
      assert.deepInclude(created, { _tag: "NotEntitled", feature: "ai.advanced" })
      assert.strictEqual((yield* schedules.list(keyOf(ws), { limit: 10, cursor: undefined })).data.length, 0)
      const kept = yield* schedules.create(keyOf(ws), body())
      const updated = yield* Effect.flip(schedules.update(keyOf(ws), kept.id, { task: advanced }))
      assert.deepInclude(updated, { _tag: "NotEntitled", feature: "ai.advanced" })
      assert.strictEqual((yield* schedules.get(keyOf(ws), kept.id)).task.model, "atrium-local-1")
      // Once entitled, the same schedule is accepted.
      yield* (yield* Entitlements).grant(systemPrincipal(ws), { feature: Feature.make("ai.advanced"), source: "plan" })
      assert.strictEqual((yield* schedules.update(keyOf(ws), kept.id, { task: advanced })).task.model, "gpt-4o")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a cron longer than 256 characters is invalid input, in the schema and in the service", () =>
    Effect.gen(function*() {
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const long = `0 9 * * ${Array.from({ length: 1500 }, () => "1").join(",")}`
      assert.isFalse(Schema.is(CronExpression)(long))
      assert.isTrue(Schema.is(CronExpression)("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59 * * * *"))
      const refused = yield* Effect.flip(schedules.create(keyOf(ws), body({ cron: long })))
      assert.strictEqual(refused._tag, "InvalidInput")
      assert.match(refused._tag === "InvalidInput" ? refused.detail : "", /^cron: .*at most 256 characters/)
      assert.strictEqual((yield* Effect.flip(schedules.preview(long, "UTC")))._tag, "InvalidInput")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it("maxRuns beyond 1,000,000 and times outside years 1 to 9999 fail the input schema", () => {
    const decode = Schema.decodeUnknownExit(CreateScheduleInput)
    const base = { name: "h", cron: "0 0 1 1 *", timezone: "UTC", task: { model: "atrium-local-1", input: { prompt: "p" } } }
    for (const extra of [{ maxRuns: 2147483648 }, { maxRuns: 1_000_001 }, { startsAt: "-271821-04-20T00:00:00.000Z" }, { endsAt: "+275760-09-13T00:00:00.000Z" }]) {
      assert.isTrue(Exit.isFailure(decode({ ...base, ...extra })), JSON.stringify(extra))
      assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(UpdateScheduleInput)(extra)), JSON.stringify(extra))
    }
    for (const extra of [{ maxRuns: 1_000_000 }, { startsAt: "0001-01-01T00:00:00.000Z" }, { endsAt: "9999-12-31T23:59:59.999Z" }]) {
      assert.isTrue(Exit.isSuccess(decode({ ...base, ...extra })), JSON.stringify(extra))
    }
  })
})

describe("Schedules: firing", () => {
  it.effect("an occurrence fires once through the AI task path, with the schedule on the task and its events", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:59:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(ws), body({ cron: "0 9 * * 1", timezone: "Europe/Berlin" }))
      assert.strictEqual(Option.map(created.nextRunAt, DateTime.formatIso).pipe(Option.getOrNull), "2026-05-11T07:00:00.000Z")
      yield* setTime("2026-05-11T07:00:00Z")
      const claimed = yield* (yield* Schedules).claim(10)
      assert.strictEqual(claimed.length, 1)
      // The same claimed occurrence fired twice (a lease that ran out): one task.
      yield* schedules.fire(claimed[0]!)
      yield* schedules.fire(claimed[0]!)
      const [task] = yield* tasks
      assert.strictEqual((yield* tasks).length, 1)
      assert.strictEqual(Option.getOrNull(task!.scheduleId), created.id)
      assert.deepStrictEqual(yield* eventsOf("schedule.run_started"), [{ scheduleId: created.id, scheduledFor: "2026-05-11T07:00:00.000Z", taskId: task!.id }])
      yield* runTasks
      const [succeeded] = yield* eventsOf("ai_task.succeeded")
      assert.deepInclude(succeeded, { scheduleId: created.id })
      const after = yield* schedules.get(keyOf(ws), created.id)
      assert.deepInclude(Option.getOrNull(after.lastRun), { status: "succeeded" })
      assert.strictEqual(Option.map(after.nextRunAt, DateTime.formatIso).pipe(Option.getOrNull), "2026-05-18T07:00:00.000Z")
      const runs = yield* schedules.runs(keyOf(ws), created.id, { limit: 10, cursor: undefined })
      assert.deepStrictEqual(runs.data.map((run) => [run.status, Option.getOrNull(run.taskId)]), [["succeeded", task!.id]])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("after 3 hours down, catchUp latest runs once for the latest occurrence; none runs nothing; either leaves the missed one as skipped (missed)", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:30:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const latest = yield* schedules.create(keyOf(ws), body({ name: "latest" }))
      const none = yield* schedules.create(keyOf(ws), body({ name: "none", catchUp: "none" }))
      // Down from 08:30 to 12:10: 09:00, 10:00, 11:00 and 12:00 were missed.
      yield* setTime("2026-05-04T12:10:00Z")
      yield* firePass
      yield* firePass
      const all = yield* tasks
      assert.deepStrictEqual(all.map((task) => Option.getOrNull(task.scheduleId)), [latest.id])
      const runsOf = (id: ScheduleId) =>
        schedules.runs(keyOf(ws), id, { limit: 10, cursor: undefined }).pipe(
          Effect.map((page) => page.data.map((run) => [DateTime.formatIso(run.scheduledFor), run.status, Option.getOrNull(run.reason)]))
        )
      // What catch-up decided is in the runs: the occurrence that was due is skipped as missed, the latest one ran.
      assert.deepStrictEqual(yield* runsOf(latest.id), [
        ["2026-05-04T12:00:00.000Z", "started", null],
        ["2026-05-04T09:00:00.000Z", "skipped", "missed"]
      ])
      assert.deepStrictEqual(yield* runsOf(none.id), [["2026-05-04T09:00:00.000Z", "skipped", "missed"]])
      assert.deepStrictEqual(
        (yield* eventsOf("schedule.run_skipped")).map((data) => JSON.stringify(data)).sort(),
        [latest.id, none.id].map((scheduleId) => JSON.stringify({ scheduleId, scheduledFor: "2026-05-04T09:00:00.000Z", reason: "missed" })).sort()
      )
      for (const id of [latest.id, none.id]) {
        const s = yield* schedules.get(keyOf(ws), id)
        assert.strictEqual(Option.map(s.nextRunAt, DateTime.formatIso).pipe(Option.getOrNull), "2026-05-04T13:00:00.000Z")
        // A missed occurrence is no failure.
        assert.strictEqual(s.consecutiveFailures, 0)
      }
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("overlap skip: no new run while the previous task is still running; queue submits anyway", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:59:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const skip = yield* schedules.create(keyOf(ws), body({ name: "skip" }))
      const queue = yield* schedules.create(keyOf(ws), body({ name: "queue", overlap: "queue" }))
      yield* setTime("2026-05-04T09:00:00Z")
      yield* firePass
      // The tasks never run: they stay queued through the next occurrence.
      yield* setTime("2026-05-04T10:00:00Z")
      yield* firePass
      const runsOf = (id: ScheduleId) => schedules.runs(keyOf(ws), id, { limit: 10, cursor: undefined }).pipe(Effect.map((p) => p.data.map((r) => [r.status, Option.getOrNull(r.reason)])))
      assert.deepStrictEqual(yield* runsOf(skip.id), [["skipped", "overlap"], ["started", null]])
      assert.deepStrictEqual(yield* runsOf(queue.id), [["started", null], ["started", null]])
      assert.deepStrictEqual(yield* eventsOf("schedule.run_skipped"), [{ scheduleId: skip.id, scheduledFor: "2026-05-04T10:00:00.000Z", reason: "overlap" }])
      // An overlap is not a failure.
      assert.strictEqual((yield* schedules.get(keyOf(ws), skip.id)).consecutiveFailures, 0)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("five refused firings in a row pause the schedule (not_entitled) with schedule.paused", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:59:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(ws), body())
      yield* (yield* Entitlements).revoke(systemPrincipal(ws), { feature: Feature.make("ai.basic") })
      for (let hour = 9; hour <= 14; hour++) {
        yield* setTime(`2026-05-04T${String(hour).padStart(2, "0")}:00:00Z`)
        yield* firePass
      }
      const paused = yield* schedules.get(keyOf(ws), created.id)
      assert.isFalse(paused.enabled)
      assert.strictEqual(Option.getOrNull(paused.pausedReason), "not_entitled")
      assert.isTrue(Option.isNone(paused.nextRunAt))
      assert.strictEqual((yield* eventsOf("schedule.run_skipped")).length, 5)
      assert.deepStrictEqual(yield* eventsOf("schedule.paused"), [{ scheduleId: created.id, reason: "not_entitled" }])
      assert.strictEqual((yield* tasks).length, 0)
      // Resuming clears the count and schedules the next occurrence.
      const resumed = yield* schedules.resume(keyOf(ws), created.id)
      assert.strictEqual(resumed.consecutiveFailures, 0)
      assert.strictEqual(Option.map(resumed.nextRunAt, DateTime.formatIso).pipe(Option.getOrNull), "2026-05-04T15:00:00.000Z")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("failed tasks count too: the configured number of failures in a row pauses it as failing", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:59:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(ws), body())
      yield* Ref.set((yield* ScriptedProvider).script, [1, 2, 3].map(() => providerFails("provider_rejected", false)))
      for (let hour = 9; hour <= 12; hour++) {
        yield* setTime(`2026-05-04T${String(hour).padStart(2, "0")}:00:00Z`)
        yield* firePass
        yield* runTasks
      }
      const paused = yield* schedules.get(keyOf(ws), created.id)
      assert.strictEqual(Option.getOrNull(paused.pausedReason), "failing")
      assert.strictEqual((yield* tasks).length, 3)
      assert.deepStrictEqual(yield* eventsOf("schedule.paused"), [{ scheduleId: created.id, reason: "failing" }])
    }).pipe(Effect.provide(Layer.provideMerge(Domain.layerMemory, Layer.succeed(CurrentSchedulePolicy, { ...defaultSchedulePolicy, failuresBeforePause: 3 })))))

  it.effect("a success in between resets the failure count", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:59:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(ws), body())
      yield* Ref.set((yield* ScriptedProvider).script, [providerFails("provider_rejected", false)])
      for (let hour = 9; hour <= 10; hour++) {
        yield* setTime(`2026-05-04T${String(hour).padStart(2, "0")}:00:00Z`)
        yield* firePass
        yield* runTasks
      }
      assert.strictEqual((yield* schedules.get(keyOf(ws), created.id)).consecutiveFailures, 0)
      const runs = yield* schedules.runs(keyOf(ws), created.id, { limit: 10, cursor: undefined })
      assert.deepStrictEqual(runs.data.map((run) => run.status), ["succeeded", "failed"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("removing the creator, or demoting them below admin, pauses their schedules (creator_removed)", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:59:00Z")
      const schedules = yield* Schedules
      const members = yield* Members
      const { ownerPrincipal, join } = yield* team
      yield* (yield* Entitlements).grant(systemPrincipal(ownerPrincipal.workspaceId), { feature: Feature.make("ai.basic"), source: "plan" })
      yield* (yield* Usage).addCredits(systemPrincipal(ownerPrincipal.workspaceId), 1_000_000)
      const removed = yield* join("removed@example.com", "admin")
      const demoted = yield* join("demoted@example.com", "admin")
      const kept = yield* join("kept@example.com", "admin")
      const a = yield* schedules.create(removed.principal, body({ name: "a" }))
      const b = yield* schedules.create(demoted.principal, body({ name: "b" }))
      const c = yield* schedules.create(kept.principal, body({ name: "c" }))
      yield* members.remove(ownerPrincipal, removed.membership.id)
      yield* members.changeRole(ownerPrincipal, demoted.membership.id, "member")
      const reasons = yield* Effect.forEach([a, b, c], (s) => schedules.get(ownerPrincipal, s.id).pipe(Effect.map((x) => Option.getOrNull(x.pausedReason))))
      assert.deepStrictEqual(reasons, ["creator_removed", "creator_removed", null])
      assert.deepStrictEqual((yield* eventsOf("schedule.paused")).map((e) => e), [
        { scheduleId: a.id, reason: "creator_removed" },
        { scheduleId: b.id, reason: "creator_removed" }
      ])
      // Nothing fires for the paused ones.
      yield* setTime("2026-05-04T09:00:00Z")
      yield* firePass
      assert.deepStrictEqual((yield* tasks).map((task) => Option.getOrNull(task.scheduleId)), [c.id])
      // An admin resuming it takes it over.
      const resumed = yield* schedules.resume(ownerPrincipal, a.id)
      assert.deepStrictEqual(resumed.createdBy, { type: "user", id: ownerPrincipal.userId })
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("run-now fires at once under the same rules; a paused schedule refuses it", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:10:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(ws), body())
      const run = yield* schedules.runNow(keyOf(ws), created.id)
      assert.strictEqual(run.status, "started")
      assert.strictEqual(run.trigger, "manual")
      const again = yield* schedules.runNow(keyOf(ws), created.id).pipe(Effect.andThen(Effect.void), Effect.flip, Effect.option)
      // Same millisecond: the instant is taken.
      assert.isTrue(Option.isSome(again))
      const paused = yield* schedules.pause(keyOf(ws), created.id)
      assert.deepStrictEqual(yield* eventsOf("schedule.paused"), [{ scheduleId: created.id, reason: "manual" }])
      assert.isTrue(Option.isNone(paused.nextRunAt))
      assert.strictEqual((yield* Effect.flip(schedules.runNow(keyOf(ws), created.id)))._tag, "Conflict")
      // The pending occurrence went with the pause: nothing fires at 09:00.
      yield* setTime("2026-05-04T09:00:00Z")
      assert.strictEqual(yield* firePass, 0)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("editing the cron moves the next occurrence and drops the old one", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:10:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(ws), body())
      const edited = yield* schedules.update(keyOf(ws), created.id, { cron: "30 8 * * *", timezone: "Europe/Berlin" })
      assert.strictEqual(Option.map(edited.nextRunAt, DateTime.formatIso).pipe(Option.getOrNull), "2026-05-05T06:30:00.000Z")
      yield* setTime("2026-05-04T09:00:00Z")
      assert.strictEqual(yield* firePass, 0)
      const pending = Array.from((yield* state).scheduleRuns.values()).filter((r) => r.status === "pending")
      assert.deepStrictEqual(pending.map((r) => DateTime.formatIso(r.scheduledFor)), ["2026-05-05T06:30:00.000Z"])
      yield* schedules.remove(keyOf(ws), created.id)
      assert.strictEqual((yield* state).scheduleRuns.size, 0)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a hanging provider keeps the task running, so the next occurrence is skipped as overlap", () =>
    Effect.gen(function*() {
      yield* setTime("2026-05-04T08:59:00Z")
      const schedules = yield* Schedules
      const ws = yield* entitledWorkspace()
      const created = yield* schedules.create(keyOf(ws), body())
      yield* Ref.set((yield* ScriptedProvider).script, [providerHangs])
      yield* setTime("2026-05-04T09:00:00Z")
      yield* firePass
      const claimed = yield* (yield* AiTasks).claim(10)
      assert.strictEqual(claimed.length, 1)
      yield* setTime("2026-05-04T10:00:00Z")
      yield* firePass
      const runs = yield* schedules.runs(keyOf(ws), created.id, { limit: 10, cursor: undefined })
      assert.deepStrictEqual(runs.data.map((r) => r.status), ["skipped", "started"])
    }).pipe(Effect.provide(Domain.layerMemory)))
})
