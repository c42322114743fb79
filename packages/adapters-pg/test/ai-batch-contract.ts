import { AiTasks, BillingRepository, type SubmitAiTaskError, type SubmitAiTaskInput, type SubmittedAiTask, Transactor, Usage, type WorkspaceId, Workspaces, type Acting } from "@atrium/domain"
import { runDueTasks, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Latch, Layer, Queue, Ref, Result, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import type { Ports } from "../src/index.ts"
import { domain, hello, setup, worstHello } from "./ai-domain-contract.ts"
import { StorageProbe } from "./storage-probe.ts"

const submitAll = (submissions: ReadonlyArray<readonly [Acting, SubmitAiTaskInput]>) =>
  Effect.gen(function*() {
    const tasks = yield* AiTasks
    return yield* Effect.all(submissions.map((submission) => Effect.result(tasks.submit(...submission))), { concurrency: "unbounded" })
  })

/** What the domain asked of its transactor: transactions begun, and one item per question whether the caller runs in one. */
class DomainTransactions extends Context.Service<DomainTransactions, { readonly begun: Ref.Ref<number>; readonly asked: Queue.Queue<void> }>()(
  "@atrium/adapters-pg/test/DomainTransactions"
) {
  static readonly layer = Layer.effect(DomainTransactions, Effect.all({ begun: Ref.make(0), asked: Queue.unbounded<void>() }))
}
const countingTransactor = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const inner = yield* Transactor
    const { asked, begun } = yield* DomainTransactions
    return Transactor.of({
      withTransaction: (effect) => Ref.update(begun, (n) => n + 1).pipe(Effect.andThen(inner.withTransaction(effect))),
      inTransaction: Queue.offer(asked, undefined).pipe(Effect.andThen(inner.inTransaction))
    })
  })
)
// The domain over the target, what it asks of its transactor counted.
const countedDomain = domain.pipe(Layer.provide(countingTransactor), Layer.provideMerge(DomainTransactions.layer))

/**
 * Submits `queued` while `workspaceId`'s billing lock (in memory: the one transaction) is held and both submission
 * writers wait behind it with a submission of `ahead` each, so everything `queued` submits gathers into one batch once
 * released. Answers what `ahead` and `queued` answered, and how many transactions the domain began meanwhile.
 */
const inOneBatch = (
  workspaceId: WorkspaceId,
  queued: ReadonlyArray<readonly [Acting, SubmitAiTaskInput]>,
  ahead: readonly [ReturnType<typeof hello>, ReturnType<typeof hello>] = [hello(workspaceId), hello(workspaceId)]
) =>
  Effect.gen(function*() {
    const tasks = yield* AiTasks
    const tx = yield* Transactor
    const billing = yield* BillingRepository
    const probe = yield* StorageProbe
    const { asked, begun } = yield* DomainTransactions
    const begunBefore = yield* Ref.get(begun)
    yield* Queue.clear(asked)
    const held = yield* Deferred.make<number>()
    const release = yield* Latch.make(false)
    const holder = yield* Effect.forkChild(tx.withTransaction(billing.account(workspaceId).pipe(
      Effect.andThen(probe.session),
      Effect.flatMap((session) => Deferred.succeed(held, session)),
      Effect.andThen(release.await)
    )))
    const session = yield* Deferred.await(held)
    // Until `count` writers began their transactions and wait for the lock, or `submission` was answered without.
    const untilWriters = <A>(count: number, submission: Fiber.Fiber<A>) =>
      Effect.all([Ref.get(begun), probe.waitingFor(session)]).pipe(
        Effect.repeat({ until: ([began, waiting]) => began - begunBefore >= count && waiting >= count, schedule: Schedule.spaced("5 millis") }),
        Effect.raceFirst(Fiber.await(submission))
      )
    // One at a time, so that each writer takes one.
    const first = yield* Effect.forkChild(Effect.result(tasks.submit(...ahead[0])))
    yield* untilWriters(1, first)
    const second = yield* Effect.forkChild(Effect.result(tasks.submit(...ahead[1])))
    yield* untilWriters(2, second)
    const batch = yield* Effect.forkChild(submitAll(queued))
    // Until every submission asked whether it runs in a transaction: its last step before it joins the batch's queue.
    yield* Queue.takeBetween(asked, ahead.length + queued.length, ahead.length + queued.length)
    yield* release.open
    yield* Fiber.join(holder)
    return {
      ahead: [yield* Fiber.join(first), yield* Fiber.join(second)],
      answers: yield* Fiber.join(batch),
      transactions: (yield* Ref.get(begun)) - begunBefore
    }
  })

/** Each answer as the caller sees it: a new task, a replay, or the refusal's tag. */
const kindOf = (result: Result.Result<SubmittedAiTask, SubmitAiTaskError>) =>
  Result.isSuccess(result) ? (result.success.replayed ? "replayed" : "created") : result.failure._tag

const taskIdOf = (result: Result.Result<SubmittedAiTask, SubmitAiTaskError> | undefined) =>
  result !== undefined && Result.isSuccess(result) ? result.success.task.id : assert.fail("a submission was refused")

const outcomeOf = (result: Result.Result<unknown, SubmitAiTaskError>) =>
  Result.isSuccess(result) ? "accepted" : result.failure._tag === "UsageCapReached" ? `${result.failure._tag}:${result.failure.meter}` : result.failure._tag

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
        const { answers } = yield* inOneBatch(funded, [
          hello(funded), hello(capped), hello(short), hello(unentitled), hello(capped), hello(short), hello(funded)
        ])
        assert.deepStrictEqual(answers.map(outcomeOf), [
          "accepted", "accepted", "accepted", "NotEntitled", "UsageCapReached:ai_tasks", "InsufficientCredits", "accepted"
        ])
        // Two submissions went before the batch (the writers held up behind the lock), two in it.
        const stored = [funded, capped, short, unentitled]
        assert.deepStrictEqual(yield* Effect.forEach(stored, (ws) => probe.count("ai_tasks", ws)), [4, 1, 1, 0])
        assert.deepStrictEqual(yield* Effect.forEach(stored, (ws) => Effect.map(usage.current(systemPrincipal(ws)), (u) => u.reservedMicros)), [4 * worstHello, worstHello, worstHello, 0])
        assert.deepStrictEqual(yield* Effect.forEach(stored, (ws) => Effect.map(usage.current(systemPrincipal(ws)), (u) => u.taskCount)), [4, 1, 1, 0])
        yield* runDueTasks(100)
      }).pipe(Effect.provide(countedDomain)))

    it.effect("keyed submissions in one batch: a key's first use creates its task, its repeats replay it, another body is 409, a refused use leaves the key free; one transaction", () =>
      Effect.gen(function*() {
        const usage = yield* Usage
        const probe = yield* StorageProbe
        const funded = yield* setup(10 * worstHello)
        // Short of hello's worst case (1,601), enough for one with 10 output tokens (1 + 4).
        const short = yield* setup(worstHello - 1)
        const small = { maxOutputTokens: 10 }
        const { answers, transactions } = yield* inOneBatch(funded, [
          hello(funded, { idempotencyKey: "a" }),
          hello(funded, { idempotencyKey: "a" }),
          hello(funded, { idempotencyKey: "a", input: { prompt: "hello!" } }),
          hello(funded, { idempotencyKey: "b" }),
          hello(funded),
          hello(short, { idempotencyKey: "a" }),
          hello(short, { idempotencyKey: "a", ...small }),
          hello(short, { idempotencyKey: "a", ...small }),
          hello(funded, { idempotencyKey: "b" })
        ])
        assert.deepStrictEqual(answers.map(kindOf), [
          "created", "replayed", "IdempotencyKeyReused", "created", "created", "InsufficientCredits", "created", "replayed", "replayed"
        ])
        assert.strictEqual(taskIdOf(answers[1]), taskIdOf(answers[0]))
        assert.strictEqual(taskIdOf(answers[7]), taskIdOf(answers[6]))
        assert.strictEqual(taskIdOf(answers[8]), taskIdOf(answers[3]))
        // The two writers' batches ahead of it (one, if a writer took both), and the batch itself: no keyed submission
        // took a transaction of its own.
        assert.isAtMost(transactions, 3)
        assert.deepStrictEqual(yield* Effect.forEach([funded, short], (ws) => probe.count("ai_tasks", ws)), [5, 1])
        assert.deepStrictEqual(yield* Effect.forEach([funded, short], (ws) => Effect.map(usage.current(systemPrincipal(ws)), (u) => u.reservedMicros)), [5 * worstHello, 5])
        // The keys were stored with the batch: later batches replay them too.
        const tasks = yield* AiTasks
        assert.strictEqual((yield* tasks.submit(...hello(funded, { idempotencyKey: "a" }))).task.id, taskIdOf(answers[0]))
        assert.strictEqual((yield* tasks.submit(...hello(short, { idempotencyKey: "a", ...small }))).task.id, taskIdOf(answers[6]))
        yield* runDueTasks(100)
      }).pipe(Effect.provide(countedDomain)))

    it.effect("keys used in earlier batches are answered inside a later batch beside new submissions: replayed, or 409 for another body; one transaction", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const probe = yield* StorageProbe
        const ws = yield* setup(10 * worstHello)
        const earlier = yield* tasks.submit(...hello(ws, { idempotencyKey: "earlier" }))
        // The earlier task ran meanwhile: a replay answers it as it now stands.
        yield* runDueTasks(100)
        const { answers, transactions } = yield* inOneBatch(ws, [
          hello(ws, { idempotencyKey: "earlier" }),
          hello(ws, { idempotencyKey: "earlier", metadata: { a: "b" } }),
          hello(ws, { idempotencyKey: "later" }),
          hello(ws, { idempotencyKey: "earlier" })
        ])
        assert.deepStrictEqual(answers.map(kindOf), ["replayed", "IdempotencyKeyReused", "created", "replayed"])
        const replay = answers[0]
        if (replay === undefined || Result.isFailure(replay)) return assert.fail("the earlier key was not replayed")
        assert.strictEqual(replay.success.task.id, earlier.task.id)
        assert.strictEqual(replay.success.task.status, "succeeded")
        assert.isAtMost(transactions, 3)
        // Across batches again, one after the other.
        const again = yield* tasks.submit(...hello(ws, { idempotencyKey: "later" }))
        assert.isTrue(again.replayed)
        assert.strictEqual(again.task.id, taskIdOf(answers[2]))
        const reused = yield* tasks.submit(...hello(ws, { idempotencyKey: "later", maxOutputTokens: 10 })).pipe(Effect.flip)
        assert.strictEqual(reused._tag, "IdempotencyKeyReused")
        assert.strictEqual(yield* probe.count("ai_tasks", ws), 4)
        yield* runDueTasks(100)
      }).pipe(Effect.provide(countedDomain)))

    it.effect("a batch learning from its write that a key is in use is decided again: the replay reserves nothing, so a submission it crowded out is accepted", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const usage = yield* Usage
        const probe = yield* StorageProbe
        // Room for two worst cases: the earlier task holds one, so the batch can reserve one more.
        const ws = yield* setup(2 * worstHello)
        const earlier = yield* tasks.submit(...hello(ws, { idempotencyKey: "earlier" }))
        const answered = yield* inOneBatch(ws, [hello(ws, { idempotencyKey: "earlier" }), hello(ws, { metadata: { n: "1" } })], [
          hello(ws, { idempotencyKey: "earlier" }),
          hello(ws, { idempotencyKey: "earlier", input: { prompt: "another body" } })
        ])
        assert.deepStrictEqual(answered.ahead.map(kindOf), ["replayed", "IdempotencyKeyReused"])
        // Decided once, the replay's reservation would have left no room for the second submission.
        assert.deepStrictEqual(answered.answers.map(kindOf), ["replayed", "created"])
        assert.strictEqual(taskIdOf(answered.answers[0]), earlier.task.id)
        assert.strictEqual(yield* probe.count("ai_tasks", ws), 2)
        assert.strictEqual((yield* usage.current(systemPrincipal(ws))).reservedMicros, 2 * worstHello)
        // With no credit left, the key still answers: a replay, and 409 for another body (never 402).
        const replay = yield* tasks.submit(...hello(ws, { idempotencyKey: "earlier" }))
        assert.deepStrictEqual([replay.replayed, replay.task.id], [true, earlier.task.id])
        assert.strictEqual((yield* tasks.submit(...hello(ws, { idempotencyKey: "earlier", maxOutputTokens: 10 })).pipe(Effect.flip))._tag, "IdempotencyKeyReused")
        yield* runDueTasks(100)
      }).pipe(Effect.provide(countedDomain)))

    it.effect("concurrent submissions with one key, two batches in flight and a third gathered behind them, create one task, reserved once", () =>
      Effect.gen(function*() {
        const usage = yield* Usage
        const probe = yield* StorageProbe
        const ws = yield* setup(10 * worstHello)
        const burst = hello(ws, { idempotencyKey: "burst" })
        const { transactions, ...answered } = yield* inOneBatch(ws, Array.from({ length: 18 }, () => burst), [burst, burst])
        const all = [...answered.ahead, ...answered.answers]
        assert.strictEqual(all.length, 20)
        assert.deepStrictEqual(all.map(kindOf).filter((kind) => kind === "created"), ["created"])
        assert.strictEqual(all.filter((result) => kindOf(result) === "replayed").length, 19)
        assert.strictEqual(new Set(all.map(taskIdOf)).size, 1)
        assert.isAtMost(transactions, 3)
        assert.strictEqual(yield* probe.count("ai_tasks", ws), 1)
        assert.strictEqual((yield* usage.current(systemPrincipal(ws))).reservedMicros, worstHello)
        yield* runDueTasks(100)
      }).pipe(Effect.provide(countedDomain)))
  })

/** A batch whose one write fails (the database cancels it) over a SQL target: every submission in it is 503, nothing of it stays. */
export const aiBatchWriteFailureContract = <E>(label: string, target: Layer.Layer<Ports | SqlClient.SqlClient, E>) =>
  layer(StorageProbe.layerSql.pipe(Layer.provideMerge(target)), { timeout: "60 seconds", excludeTestServices: true })(`an AI submission batch whose write fails on ${label}`, (it) => {
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
        const { answers } = yield* inOneBatch(funded, [
          hello(funded), hello(other), hello(funded, { metadata: { refuse: "yes" } }), hello(other)
        ])
        assert.deepStrictEqual(answers.map(outcomeOf), ["Unavailable", "Unavailable", "Unavailable", "Unavailable"])
        // Only the two submissions that went before the batch are stored.
        assert.deepStrictEqual(yield* counts(funded), { tasks: 2, audit: 2, reserved: 2 * worstHello, taskCount: 2 })
        assert.deepStrictEqual(yield* counts(other), { tasks: 0, audit: 0, reserved: 0, taskCount: 0 })
        yield* sql.unsafe(`DROP TRIGGER refuse_marked_task ON ai_tasks`)
        // The same submissions go through once the database takes them.
        const retried = yield* submitAll([hello(other), hello(funded, { metadata: { refuse: "yes" } })])
        assert.deepStrictEqual(retried.map(outcomeOf), ["accepted", "accepted"])
        yield* runDueTasks(100)
      }).pipe(Effect.provide(countedDomain)))
  })
