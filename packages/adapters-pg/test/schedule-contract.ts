import {
  AiProvider,
  AiTasks,
  ApiKeyId,
  ApiKeyPrincipal,
  Entitlements,
  Feature,
  ScheduleRepository,
  ScheduleRun,
  Schedules,
  Transactor,
  Usage,
  WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { Domain, runDueTasks, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Ports } from "../src/index.ts"
import { at } from "./fixtures.ts"

// atrium-local-1, prompt "hello": the worst case reserved per task (see the AI contract).
const worstHello = 1601

const domain = Domain.layerOver(Layer.empty, { replace: AiProvider.layer }
)

const setup = (credits: number) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
    yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
    yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), credits)
    return workspace.id
  })

const key = (workspaceId: WorkspaceId) => new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_pgtest"), workspaceId, scopes: ["write"] })

const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))
const count = (query: Effect.Effect<ReadonlyArray<unknown>, unknown>) => query.pipe(Effect.flatMap(decodeCount), Effect.map(([row]) => row.count), Effect.orDie)

// Makes a schedule's pending occurrence due now (the real clock would wait for the next minute).
const makeDue = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE schedule_runs SET due_at = now() - interval '1 second' WHERE workspace_id = ${workspaceId} AND status = 'pending'`
  }).pipe(Effect.orDie)

/** Schedules on a database target: exactly-once firing across workers, and credits never overspent. */
export const scheduleDomainContract = <E>(label: string, target: Layer.Layer<Ports | SqlClient.SqlClient, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`schedules end to end on ${label}`, (it) => {
    it.effect("two workers claiming and firing at once fire one occurrence once: one run, one task, one reservation", () =>
      Effect.gen(function*() {
        const schedules = yield* Schedules
        const sql = yield* SqlClient.SqlClient
        const ws = yield* setup(100 * worstHello)
        const created = yield* schedules.create(key(ws), { name: "every minute", cron: "* * * * *", timezone: "Europe/Berlin", task: { model: "atrium-local-1", input: { prompt: "hello" } } })
        yield* makeDue(ws)
        // Two workers' passes side by side, then both fire what either claimed (as after a lapsed lease).
        const claims = yield* Effect.all([schedules.claim(10), schedules.claim(10)], { concurrency: "unbounded" })
        const mine = claims.flat().filter((run) => run.scheduleId === created.id)
        assert.strictEqual(mine.length, 1, "SKIP LOCKED leases hand the occurrence to one worker")
        yield* Effect.all([schedules.fire(mine[0]!), schedules.fire(mine[0]!), schedules.fire(mine[0]!)], { concurrency: "unbounded" })
        assert.strictEqual(yield* count(sql`SELECT count(*)::int AS count FROM ai_tasks WHERE schedule_id = ${created.id}`), 1)
        assert.strictEqual(yield* count(sql`SELECT count(*)::int AS count FROM schedule_runs WHERE schedule_id = ${created.id} AND status = 'started'`), 1)
        assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).reservedMicros, worstHello)
        assert.strictEqual(yield* count(sql`SELECT count(*)::int AS count FROM events WHERE workspace_id = ${ws} AND type = 'schedule.run_started'`), 1)
        // The next occurrence is pending, a minute on.
        const pending = yield* count(sql`SELECT count(*)::int AS count FROM schedule_runs WHERE schedule_id = ${created.id} AND status = 'pending'`)
        assert.strictEqual(pending, 1)
        yield* runDueTasks(100)
      }).pipe(Effect.provide(domain)))

    it.effect("a firing racing direct submissions for the last credits never overspends", () =>
      Effect.gen(function*() {
        const schedules = yield* Schedules
        const tasks = yield* AiTasks
        const ws = yield* setup(3 * worstHello)
        const created = yield* schedules.create(key(ws), { name: "race", cron: "* * * * *", timezone: "UTC", task: { model: "atrium-local-1", input: { prompt: "hello" } } })
        yield* makeDue(ws)
        const claimed = (yield* schedules.claim(10)).filter((run) => run.scheduleId === created.id)
        assert.strictEqual(claimed.length, 1)
        const direct = Array.from({ length: 5 }, () =>
          tasks.submit(systemPrincipal(ws), { model: "atrium-local-1", input: { prompt: "hello" } }).pipe(Effect.result)
        )
        const [fired, ...results] = yield* Effect.all([schedules.fire(claimed[0]!).pipe(Effect.as("fired")), ...direct], { concurrency: "unbounded" })
        assert.strictEqual(fired, "fired")
        const directWins = results.filter((r) => typeof r !== "string" && r._tag === "Success").length
        const runs = yield* schedules.runs(key(ws), created.id, { limit: 10, cursor: undefined })
        const firing = runs.data[0]
        assert.isDefined(firing)
        const firingWon = firing?.status === "started" ? 1 : 0
        if (firingWon === 0) assert.strictEqual(Option.getOrNull(firing!.reason), "insufficient_credits")
        assert.strictEqual(directWins + firingWon, 3)
        const usage = yield* (yield* Usage).current(systemPrincipal(ws))
        assert.strictEqual(usage.reservedMicros, 3 * worstHello)
        assert.strictEqual(usage.availableCreditMicros, 0)
        yield* runDueTasks(100)
      }).pipe(Effect.provide(domain)))
  })

/** The schedule repository's own rules, the same on every implementation (memory and Postgres). */
export const scheduleRepositoryContract = <E>(label: string, target: Layer.Layer<Ports, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`ScheduleRepository on ${label}`, (it) => {
    it.effect("one run per (schedule, instant); claims lease due pending runs once; runs page newest first; a missed run keeps its reason", () =>
      Effect.gen(function*() {
        const schedules = yield* Schedules
        const repo = yield* ScheduleRepository
        const tx = yield* Transactor
        const ws = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
        yield* (yield* Entitlements).grant(systemPrincipal(ws.id), { feature: Feature.make("ai.basic"), source: "plan" })
        const created = yield* schedules.create(key(ws.id), { name: "r", cron: "0 0 1 1 *", timezone: "UTC", task: { model: "atrium-local-1", input: { prompt: "x" } } })
        // Its own next occurrence out of the way, so only the runs below are in play.
        yield* tx.withTransaction(repo.deletePendingRuns(created.id))
        const runAt = (seconds: number) => ScheduleRun.pending(created, at(seconds), "schedule", at(0))
        assert.isTrue(yield* repo.insertRun(runAt(10)))
        assert.isFalse(yield* repo.insertRun(runAt(10)))
        for (const s of [20, 30]) yield* repo.insertRun(runAt(s))
        const now = at(25)
        const first = (yield* repo.claimDueRuns(now, 10, at(100))).filter((r) => r.scheduleId === created.id)
        assert.deepStrictEqual(first.map((r) => [DateTime.toEpochMillis(r.scheduledFor), r.attempts]), [[DateTime.toEpochMillis(at(10)), 1], [DateTime.toEpochMillis(at(20)), 1]])
        assert.strictEqual((yield* repo.claimDueRuns(now, 10, at(100))).filter((r) => r.scheduleId === created.id).length, 0, "leased until at(100)")
        for (const [i, run] of first.entries()) yield* repo.updateRun(run.skip(i === 0 ? "missed" : "overlap", at(40 + i)))
        const page1 = yield* repo.listRuns(ws.id, created.id, { limit: 1, cursor: undefined })
        assert.deepStrictEqual(page1.data.map((r) => [DateTime.toEpochMillis(r.scheduledFor), Option.getOrNull(r.reason)]), [[DateTime.toEpochMillis(at(20)), "overlap"]])
        const page2 = yield* repo.listRuns(ws.id, created.id, { limit: 1, cursor: page1.nextCursor ?? undefined })
        assert.deepStrictEqual(page2.data.map((r) => [DateTime.toEpochMillis(r.scheduledFor), Option.getOrNull(r.reason)]), [[DateTime.toEpochMillis(at(10)), "missed"]])
        assert.strictEqual(page2.nextCursor, null)
        // Another workspace sees none of it.
        assert.isTrue(Option.isNone(yield* repo.find(WorkspaceId.make("ws_other"), created.id)))
        assert.strictEqual((yield* repo.listRuns(WorkspaceId.make("ws_other"), created.id, { limit: 10, cursor: undefined })).data.length, 0)
        yield* tx.withTransaction(repo.deletePendingRuns(created.id))
        assert.strictEqual((yield* repo.claimDueRuns(at(1000), 10, at(2000))).filter((r) => r.scheduleId === created.id).length, 0)
        yield* repo.delete(ws.id, created.id)
        assert.isTrue(Option.isNone(yield* repo.find(ws.id, created.id)))
      }).pipe(Effect.provide(domain)))
  })

