import { type Acting, AiTasks, BillingRepository, type SubmitAiTaskError, type SubmitAiTaskInput, Transactor, Usage, type WorkspaceId, Workspaces } from "@atrium/domain"
import { operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Latch, type Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import type { Ports } from "../src/index.ts"
import { domain, hello, setup, worstHello } from "./ai-domain-contract.ts"
import { StorageProbe } from "./storage-probe.ts"

/**
 * Runs `queued` while `workspaceId`'s billing lock (in memory: the one transaction) is held and both submission
 * writers wait behind it with a submission each, so everything `queued` submits gathers into one batch once released.
 */
const inOneBatch = <A, E, R>(workspaceId: WorkspaceId, queued: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const tasks = yield* AiTasks
    const tx = yield* Transactor
    const billing = yield* BillingRepository
    const holding = yield* Latch.make(false)
    const release = yield* Latch.make(false)
    const holder = yield* Effect.forkChild(tx.withTransaction(billing.account(workspaceId).pipe(Effect.andThen(holding.open), Effect.andThen(release.await))))
    yield* holding.await
    const writers = yield* Effect.forkChild(Effect.all([tasks.submit(...hello(workspaceId)), tasks.submit(...hello(workspaceId))], { concurrency: "unbounded" }))
    yield* Effect.sleep("200 millis")
    const batch = yield* Effect.forkChild(queued)
    yield* Effect.sleep("200 millis")
    yield* release.open
    yield* Fiber.join(holder)
    yield* Fiber.join(writers)
    return yield* Fiber.join(batch)
  })

const outcomeOf = (result: Result.Result<unknown, SubmitAiTaskError>) =>
  Result.isSuccess(result) ? "accepted" : result.failure._tag === "UsageCapReached" ? `${result.failure._tag}:${result.failure.meter}` : result.failure._tag

const submitAll = (submissions: ReadonlyArray<readonly [Acting, SubmitAiTaskInput]>) =>
  Effect.gen(function*() {
    const tasks = yield* AiTasks
    return yield* Effect.all(submissions.map((submission) => Effect.result(tasks.submit(...submission))), { concurrency: "unbounded" })
  })

/** One batch of submissions over one database target: each answered on its own, and written whole or not at all. */
export const aiBatchContract = <E>(label: string, target: Layer.Layer<Ports | StorageProbe, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`AI submission batches on ${label}`, (it) => {
    it.effect("a batch mixing acceptances and every refusal answers each submission on its own and stores only the accepted", () =>
      Effect.gen(function*() {
        const usage = yield* Usage
        const probe = yield* StorageProbe
        const funded = yield* setup(10 * worstHello)
        const capped = yield* setup(10 * worstHello)
        yield* usage.setCaps(systemPrincipal(capped), { taskCap: 1 })
        const short = yield* setup(worstHello)
        const unentitled = (yield* (yield* Workspaces).create(operatorPrincipal(), { name: "No plan" })).id
        yield* usage.addCredits(systemPrincipal(unentitled), 10 * worstHello)
        const answers = yield* inOneBatch(funded, submitAll([
          hello(funded), hello(capped), hello(short), hello(unentitled), hello(capped), hello(short), hello(funded)
        ]))
        assert.deepStrictEqual(answers.map(outcomeOf), [
          "accepted", "accepted", "accepted", "NotEntitled", "UsageCapReached:ai_tasks", "InsufficientCredits", "accepted"
        ])
        // Two submissions went before the batch (the writers held up behind the lock), two in it.
        const stored = [funded, capped, short, unentitled]
        assert.deepStrictEqual(yield* Effect.forEach(stored, (ws) => probe.count("ai_tasks", ws)), [4, 1, 1, 0])
        assert.deepStrictEqual(yield* Effect.forEach(stored, (ws) => Effect.map(usage.current(systemPrincipal(ws)), (u) => u.reservedMicros)), [4 * worstHello, worstHello, worstHello, 0])
        assert.deepStrictEqual(yield* Effect.forEach(stored, (ws) => Effect.map(usage.current(systemPrincipal(ws)), (u) => u.taskCount)), [4, 1, 1, 0])
        yield* (yield* AiTasks).runDue(100)
      }).pipe(Effect.provide(domain)))
  })

/** A batch whose one write fails (the database cancels it) over a SQL target: every submission in it is 503, nothing of it stays. */
export const aiBatchWriteFailureContract = <E>(label: string, target: Layer.Layer<Ports | SqlClient.SqlClient, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`an AI submission batch whose write fails on ${label}`, (it) => {
    it.effect("refuses every submission of the batch as Unavailable and leaves no task, reservation, meter or audit entry of it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const usage = yield* Usage
        // The database cancels the batch's insert when a task carries the marker (as a statement timeout would).
        yield* sql.unsafe(`
          CREATE OR REPLACE FUNCTION refuse_marked_task() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.metadata ? 'refuse' THEN RAISE EXCEPTION 'cancelled for the test' USING ERRCODE = 'query_canceled'; END IF;
            RETURN NEW;
          END $$
        `)
        yield* sql.unsafe(`CREATE TRIGGER refuse_marked_task BEFORE INSERT ON ai_tasks FOR EACH ROW EXECUTE FUNCTION refuse_marked_task()`)
        const funded = yield* setup(10 * worstHello)
        const other = yield* setup(10 * worstHello)
        const counts = (workspaceId: WorkspaceId) =>
          Effect.gen(function*() {
            const [row] = yield* sql<{ readonly tasks: number; readonly audit: number }>`
              SELECT (SELECT count(*)::int FROM ai_tasks WHERE workspace_id = ${workspaceId}) AS tasks,
                     (SELECT count(*)::int FROM audit_entries WHERE workspace_id = ${workspaceId} AND action = 'ai_task.submitted') AS audit
            `
            const current = yield* usage.current(systemPrincipal(workspaceId))
            return { tasks: row?.tasks, audit: row?.audit, reserved: current.reservedMicros, taskCount: current.taskCount }
          })
        const answers = yield* inOneBatch(funded, submitAll([
          hello(funded), hello(other), hello(funded, { metadata: { refuse: "yes" } }), hello(other)
        ]))
        assert.deepStrictEqual(answers.map(outcomeOf), ["Unavailable", "Unavailable", "Unavailable", "Unavailable"])
        // Only the two submissions that went before the batch are stored.
        assert.deepStrictEqual(yield* counts(funded), { tasks: 2, audit: 2, reserved: 2 * worstHello, taskCount: 2 })
        assert.deepStrictEqual(yield* counts(other), { tasks: 0, audit: 0, reserved: 0, taskCount: 0 })
        yield* sql.unsafe(`DROP TRIGGER refuse_marked_task ON ai_tasks`)
        // The same submissions go through once the database takes them.
        const retried = yield* submitAll([hello(other), hello(funded, { metadata: { refuse: "yes" } })])
        assert.deepStrictEqual(retried.map(outcomeOf), ["accepted", "accepted"])
        yield* (yield* AiTasks).runDue(100)
      }).pipe(Effect.provide(domain)))
  })
