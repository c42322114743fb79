import {
  AiTask,
  AiTaskRepository,
  AuditEntry,
  AuditEntryId,
  AuditLog,
  BillingAccount,
  DomainEvent,
  Entitlement,
  EntitlementRepository,
  EventId,
  EventOutbox,
  Feature,
  BillingRepository,
  MonthlyUsage,
  ReservationsNotWritten,
  TaskId,
  Transactor,
  UsageMonth,
  WorkspaceId
} from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Exit, type Layer, Option, Result } from "effect"
import type { Ports } from "../src/index.ts"
import { whileHeld } from "./lock-wait.ts"
import type { StorageProbe } from "./storage-probe.ts"
import { at, makeAiTask, makeAuditEntry, makeEvent, makeUsageRecord, token } from "./fixtures.ts"
import { collectPages, seedWorkspace } from "./repository-contract.ts"

const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

const insertAll = (tasks: ReadonlyArray<AiTask>) =>
  AiTaskRepository.pipe(Effect.flatMap((repo) => Effect.forEach(tasks, repo.insert, { discard: true })), Effect.as(tasks))

// Finishes what a queue test leaves unfinished, so the next queue test sees only its own tasks.
const finishAll = (tasks: ReadonlyArray<AiTask>) =>
  AiTaskRepository.pipe(Effect.flatMap((repo) =>
    Effect.forEach(
      tasks,
      (task) => repo.update(new AiTask({ ...task, status: "failed", nextAttemptAt: Option.none(), finishedAt: Option.some(at(0)) })),
      { discard: true }
    )
  ))

/** A claimed task as `claimDue` stores and returns it. */
const leased = (task: AiTask, now: DateTime.Utc, leaseUntil: DateTime.Utc, attempts = task.attempts + 1) =>
  new AiTask({
    ...task,
    status: "running",
    attempts,
    nextAttemptAt: Option.some(leaseUntil),
    startedAt: Option.orElse(task.startedAt, () => Option.some(now))
  })

const march = UsageMonth.make("2030-03")
// The month of the fixtures' `createdAt` (`at(0)`).
const january = UsageMonth.make("2030-01")
// Never due, so no queue test claims what the reservation tests insert.
const reservedTask = (workspaceId: WorkspaceId, reservedMicros: number) => makeAiTask(workspaceId, { reservedMicros, nextAttemptAt: Option.none() })
const april = UsageMonth.make("2030-04")

/** The AI task and billing ports against one database target. */
export const aiContract = <E>(label: string, target: Layer.Layer<Ports | StorageProbe, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`AI task and billing ports on ${label}`, (it) => {
    it.effect("tasks round-trip every field, are found only within their workspace, and update in place", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const prompt = makeAiTask(workspace.id)
        const chat = makeAiTask(workspace.id, {
          input: { messages: [{ role: "system", content: "be brief" }, { role: "user", content: "héllo €" }] },
          maxOutputTokens: 10,
          metadata: { order: "42", "customer-ref": "" },
          reservedMicros: 9_000_000_000_000,
          submittedBy: { type: "user", id: "usr_1" }
        })
        yield* insertAll([prompt, chat])
        assert.deepStrictEqual(yield* repo.findById(workspace.id, prompt.id), Option.some(prompt))
        assert.deepStrictEqual(yield* repo.findById(workspace.id, chat.id), Option.some(chat))
        assert.isTrue(Option.isNone(yield* repo.findById(other.id, prompt.id)))
        assert.isTrue(Option.isNone(yield* repo.findById(workspace.id, TaskId.make("task_missing"))))

        const succeeded = new AiTask({
          ...chat,
          status: "succeeded",
          output: Option.some("[atrium-local-1] héllo €"),
          inputTokens: Option.some(12),
          outputTokens: Option.some(7),
          costMicros: Option.some(5),
          attempts: 2,
          nextAttemptAt: Option.none(),
          startedAt: Option.some(at(5)),
          finishedAt: Option.some(at(9))
        })
        yield* repo.update(succeeded)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, chat.id), Option.some(succeeded))
        const failed = new AiTask({
          ...prompt,
          status: "failed",
          costMicros: Option.some(0),
          error: Option.some({ code: "provider_auth", message: "The provider refused the configured credentials" }),
          nextAttemptAt: Option.none(),
          finishedAt: Option.some(at(3))
        })
        yield* repo.update(failed)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, prompt.id), Option.some(failed))
        // An update naming another workspace touches nothing.
        yield* repo.update(new AiTask({ ...failed, workspaceId: other.id, output: Option.some("stolen") }))
        assert.deepStrictEqual(yield* repo.findById(workspace.id, prompt.id), Option.some(failed))
      }))

    // The queue is global, so each queue test works in its own stretch of time and finishes what it leaves.
    it.effect("token and counter columns hold 64-bit values: tokens, task counts and caps beyond 2^31", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const workspace = yield* seedWorkspace
        const big = 5_000_000_000
        const task = makeAiTask(workspace.id, {
          status: "succeeded",
          inputTokens: Option.some(big),
          outputTokens: Option.some(big + 1),
          costMicros: Option.some(1),
          nextAttemptAt: Option.none(),
          finishedAt: Option.some(at(1))
        })
        yield* repo.insert(task)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, task.id), Option.some(task))
        const month = UsageMonth.make("2030-01")
        const usage = new MonthlyUsage({ ...MonthlyUsage.empty(workspace.id, month), taskCount: big })
        yield* billing.saveMonthlyUsage(usage)
        assert.deepStrictEqual(yield* billing.monthlyUsage(workspace.id, month), usage)
        const account = new BillingAccount({ ...BillingAccount.empty(workspace.id), taskCap: Option.some(big) })
        yield* billing.saveAccount(account)
        assert.deepStrictEqual(yield* billing.account(workspace.id), account)
        const record = makeUsageRecord(workspace.id, at(1), { taskId: task.id, inputTokens: big, outputTokens: big })
        yield* billing.insertUsageRecord(record)
        assert.deepStrictEqual((yield* billing.listUsageRecords(workspace.id, { limit: 10, cursor: undefined })).data, [record])
      }))

    it.effect("claimDue leases due unfinished tasks oldest due first, counting attempts and stamping the first start", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const workspace = yield* seedWorkspace
        const [dueLater, dueEarlier, notYetDue, done, lapsed] = yield* insertAll([
          makeAiTask(workspace.id, { nextAttemptAt: Option.some(at(100)) }),
          makeAiTask(workspace.id, { nextAttemptAt: Option.some(at(50)) }),
          makeAiTask(workspace.id, { nextAttemptAt: Option.some(at(500)) }),
          makeAiTask(workspace.id, { status: "succeeded", nextAttemptAt: Option.some(at(10)), finishedAt: Option.some(at(20)) }),
          // A worker claimed it at 60 with a lease until 80, then died.
          makeAiTask(workspace.id, { status: "running", attempts: 1, startedAt: Option.some(at(60)), nextAttemptAt: Option.some(at(80)) })
        ])
        if (dueLater === undefined || dueEarlier === undefined || notYetDue === undefined || done === undefined || lapsed === undefined) {
          return assert.fail("seeding failed")
        }

        const claimed = yield* repo.claimDue(at(200), 10, at(260))
        const expected = [leased(dueEarlier, at(200), at(260)), leased(lapsed, at(200), at(260)), leased(dueLater, at(200), at(260))]
        assert.deepStrictEqual(claimed, expected)
        assert.deepStrictEqual(claimed[1]?.startedAt, Option.some(at(60)), "a reclaimed task keeps its first start")
        for (const task of expected) assert.deepStrictEqual(yield* repo.findById(workspace.id, task.id), Option.some(task))
        assert.deepStrictEqual(yield* repo.findById(workspace.id, done.id), Option.some(done))
        assert.deepStrictEqual(yield* repo.findById(workspace.id, notYetDue.id), Option.some(notYetDue))

        // Leased: nothing is claimable again before the lease ends, and a limit of 0 claims nothing.
        assert.deepStrictEqual(yield* repo.claimDue(at(200), 10, at(260)), [])
        assert.deepStrictEqual(yield* repo.claimDue(at(259), 10, at(320)), [])
        assert.deepStrictEqual(yield* repo.claimDue(at(260), 0, at(320)), [])
        yield* finishAll([dueLater, dueEarlier, notYetDue, lapsed])
        assert.deepStrictEqual(yield* repo.claimDue(at(100_000), 100, at(100_060)), [])
      }))

    it.effect("a crashed worker's tasks come back when the lease runs out, one attempt further", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const workspace = yield* seedWorkspace
        const tasks = yield* insertAll([1, 2, 3].map((n) => makeAiTask(workspace.id, { nextAttemptAt: Option.some(at(1000 + n)) })))
        const first = yield* repo.claimDue(at(1100), 10, at(1190))
        assert.deepStrictEqual(ids(first), ids(tasks))
        // The worker crashes: nothing is recorded. Another worker claims them after the lease, one at a time if it likes.
        const one = yield* repo.claimDue(at(1190), 1, at(1500))
        const rest = yield* repo.claimDue(at(1190), 10, at(1500))
        // All three were due at the lease's end, so ties go by id.
        assert.deepStrictEqual(ids([...one, ...rest]), ids(tasks).sort())
        assert.deepStrictEqual([...one, ...rest].map((t) => t.attempts), [2, 2, 2])
        assert.deepStrictEqual([...one, ...rest].map((t) => t.startedAt), tasks.map(() => Option.some(at(1100))))
        // A requeued task (a retry) is claimable again once due.
        const [retry] = one
        if (retry === undefined) return assert.fail("nothing claimed")
        yield* repo.update(new AiTask({ ...retry, status: "queued", nextAttemptAt: Option.some(at(1300)) }))
        assert.deepStrictEqual(yield* repo.claimDue(at(1299), 10, at(1400)), [])
        const again = yield* repo.claimDue(at(1300), 10, at(1400))
        assert.deepStrictEqual(again.map((t) => [t.id, t.attempts, t.status]), [[retry.id, 3, "running"]])
        yield* finishAll(tasks)
      }))

    it.effect("concurrent claims hand every due task to exactly one claimer", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const workspace = yield* seedWorkspace
        // Ten tasks share each due time, so ties are contended too.
        const due = yield* insertAll(Array.from({ length: 120 }, (_, index) => makeAiTask(workspace.id, { nextAttemptAt: Option.some(at(2000 + (index % 12))) })))
        const rounds = yield* Effect.forEach(
          Array.from({ length: 8 }, () => at(3000)),
          (now) => repo.claimDue(now, 20, at(3060)),
          { concurrency: "unbounded" }
        )
        const claimed = rounds.flat().map((t) => t.id)
        assert.strictEqual(new Set(claimed).size, claimed.length, "a task was claimed twice")
        for (const round of rounds) assert.isAtMost(round.length, 20)
        const leftover = (yield* repo.claimDue(at(3000), 200, at(3060))).map((t) => t.id)
        assert.sameMembers([...claimed, ...leftover], ids(due))
        assert.deepStrictEqual(yield* repo.claimDue(at(3000), 200, at(3060)), [])
        yield* finishAll(due)
      }))

    it.effect("an idempotency key stored with its batch is found with its task for 24 hours, per workspace, then may be used again", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(workspace.id), creditBalanceMicros: 10_000 }))
        const first = makeAiTask(workspace.id, { reservedMicros: 10, nextAttemptAt: Option.none(), createdAt: at(0) })
        yield* repo.insertReserved([first], { entries: [], events: [] }, [{ key: "order-1", requestHash: "hash-a", taskId: first.id }])
        const asked = [{ workspaceId: workspace.id, key: "order-1" }, { workspaceId: workspace.id, key: "unused" }, { workspaceId: other.id, key: "order-1" }] as const
        const entry = { workspaceId: workspace.id, key: "order-1", requestHash: "hash-a", task: first }
        assert.deepStrictEqual(yield* repo.findIdempotencyKeys(asked, at(60)), [entry])
        assert.deepStrictEqual(yield* repo.findIdempotencyKeys(asked, at(24 * 3600 - 1)), [entry])
        // Exactly 24 hours on, the key has expired and a new use replaces it.
        assert.deepStrictEqual(yield* repo.findIdempotencyKeys(asked, at(24 * 3600)), [])
        const second = makeAiTask(workspace.id, { reservedMicros: 10, nextAttemptAt: Option.none(), createdAt: at(24 * 3600) })
        yield* repo.insertReserved([second], { entries: [], events: [] }, [{ key: "order-1", requestHash: "hash-b", taskId: second.id }])
        assert.deepStrictEqual(
          yield* repo.findIdempotencyKeys(asked, at(24 * 3600 + 1)),
          [{ workspaceId: workspace.id, key: "order-1", requestHash: "hash-b", task: second }]
        )
        // Another workspace's key of the same name is its own.
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(other.id), creditBalanceMicros: 10_000 }))
        const theirs = makeAiTask(other.id, { reservedMicros: 10, nextAttemptAt: Option.none(), createdAt: at(60) })
        yield* repo.insertReserved([theirs], { entries: [], events: [] }, [{ key: "order-1", requestHash: "hash-c", taskId: theirs.id }])
        assert.deepStrictEqual(yield* repo.findIdempotencyKeys([{ workspaceId: other.id, key: "order-1" }], at(61)), [
          { workspaceId: other.id, key: "order-1", requestHash: "hash-c", task: theirs }
        ])
      }))

    it.effect("insertReserved with a key in use writes nothing and answers the key with its task; one another transaction took meanwhile is refused", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const tx = yield* Transactor
        const workspace = yield* seedWorkspace
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(workspace.id), creditBalanceMicros: 10_000 }))
        const task = (seconds: number) => makeAiTask(workspace.id, { reservedMicros: 10, nextAttemptAt: Option.none(), createdAt: at(seconds) })
        const first = task(0)
        assert.deepStrictEqual(yield* repo.insertReserved([first], { entries: [], events: [] }, [{ key: "taken", requestHash: "hash-a", taskId: first.id }]), [])
        const late = task(60)
        const fresh = task(60)
        const audit = makeAuditEntry(workspace.id, at(60))
        const answered = yield* repo.insertReserved([late, fresh], { entries: [audit], events: [makeEvent(workspace.id, at(60))] }, [
          { key: "taken", requestHash: "hash-b", taskId: late.id },
          { key: "free", requestHash: "hash-c", taskId: fresh.id }
        ])
        assert.deepStrictEqual(answered, [{ workspaceId: workspace.id, key: "taken", requestHash: "hash-a", task: first }])
        assert.isTrue(Option.isNone(yield* repo.findById(workspace.id, late.id)))
        assert.isTrue(Option.isNone(yield* repo.findById(workspace.id, fresh.id)))
        assert.deepStrictEqual(yield* repo.findIdempotencyKeys([{ workspaceId: workspace.id, key: "free" }], at(61)), [])
        assert.strictEqual((yield* billing.account(workspace.id)).reservedMicros, 10)
        assert.deepStrictEqual((yield* (yield* AuditLog).list(workspace.id, { limit: 10, cursor: undefined })).data, [])

        // A transaction that skips the billing lock races another for a key: the loser's key is not written, it is told
        // so, and failing rolls its transaction back.
        const winner = task(120)
        const loser = task(120)
        const { waited: lost } = yield* whileHeld(
          (waitedOn) =>
            repo.insertReserved([winner], { entries: [], events: [] }, [{ key: "raced", requestHash: "hash-a", taskId: winner.id }]).pipe(
              Effect.andThen(waitedOn)
            ),
          tx.withTransaction(
            repo.insertReserved([loser], { entries: [], events: [] }, [{ key: "raced", requestHash: "hash-b", taskId: loser.id }])
          ).pipe(Effect.result)
        )
        // Postgres: the loser's statement began before the winner committed, so its key is lost and it is refused. The
        // memory store runs one transaction at a time, so the loser comes after the winner and is answered its key.
        if (Result.isFailure(lost)) {
          assert.deepStrictEqual(lost.failure, new ReservationsNotWritten({ withoutAccount: [], keysInUse: [{ workspaceId: workspace.id, key: "raced" }] }))
        } else {
          assert.deepStrictEqual(lost.success.map((record) => [record.key, record.task.id]), [["raced", winner.id]])
        }
        assert.isTrue(Option.isNone(yield* repo.findById(workspace.id, loser.id)))
        assert.deepStrictEqual(
          (yield* repo.findIdempotencyKeys([{ workspaceId: workspace.id, key: "raced" }], at(121))).map((record) => record.task.id),
          [winner.id]
        )
        assert.strictEqual((yield* billing.account(workspace.id)).reservedMicros, 20)
      }))

    it.effect("an account starts empty, is stored with its caps, and an unknown workspace reads as empty", () =>
      Effect.gen(function*() {
        const billing = yield* BillingRepository
        const workspace = yield* seedWorkspace
        assert.deepStrictEqual(yield* billing.account(workspace.id), BillingAccount.empty(workspace.id))
        const funded = new BillingAccount({
          workspaceId: workspace.id,
          creditBalanceMicros: 9_007_199_254_740_991,
          reservedMicros: 1601,
          spendCapMicros: Option.some(5_000_000_000_000),
          taskCap: Option.some(0)
        })
        yield* billing.saveAccount(funded)
        assert.deepStrictEqual(yield* billing.account(workspace.id), funded)
        const uncapped = new BillingAccount({ ...funded, spendCapMicros: Option.none(), taskCap: Option.none() })
        yield* billing.saveAccount(uncapped)
        assert.deepStrictEqual(yield* billing.account(workspace.id), uncapped)
        const unknown = WorkspaceId.make(`ws_${token()}`)
        assert.deepStrictEqual(yield* billing.account(unknown), BillingAccount.empty(unknown))
      }))

    it.effect("the database refuses an account whose reservations exceed its balance", () =>
      Effect.gen(function*() {
        const billing = yield* BillingRepository
        const workspace = yield* seedWorkspace
        const overdrawn = new BillingAccount({ ...BillingAccount.empty(workspace.id), creditBalanceMicros: 100, reservedMicros: 101 })
        const exit = yield* Effect.exit(billing.saveAccount(overdrawn))
        assert.isTrue(Exit.hasDies(exit), "an overdrawn account is a bug, not a state")
        assert.deepStrictEqual(yield* billing.account(workspace.id), BillingAccount.empty(workspace.id))
      }))

    it.effect("lockBudgets reads each key's account, month meters and grants in force; a workspace without an account has an empty one", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const tx = yield* Transactor
        const grants = yield* EntitlementRepository
        const funded = yield* seedWorkspace
        const bare = yield* seedWorkspace
        const account = new BillingAccount({ workspaceId: funded.id, creditBalanceMicros: 9_000, reservedMicros: 100, spendCapMicros: Option.some(5_000), taskCap: Option.some(7) })
        yield* billing.saveAccount(account)
        const used = new MonthlyUsage({ workspaceId: funded.id, month: march, spentMicros: 40, reservedMicros: 100, taskCount: 2, capNotices: ["ai_tasks"] })
        yield* billing.saveMonthlyUsage(used)
        const grant = (feature: string, expiresAt: Option.Option<DateTime.Utc>) =>
          grants.upsert(new Entitlement({ workspaceId: funded.id, feature: Feature.make(feature), source: "plan", sourceRef: "", grantedAt: at(0), expiresAt }))
        yield* grant("ai.basic", Option.none())
        yield* grant("ai.standard", Option.some(at(100)))
        yield* grant("ai.advanced", Option.some(at(50)))
        const budgets = yield* tx.withTransaction(
          repo.lockBudgets([{ workspaceId: funded.id, month: march }, { workspaceId: bare.id, month: march }, { workspaceId: funded.id, month: april }], at(50))
        )
        assert.strictEqual(budgets.length, 3)
        assert.deepStrictEqual(budgets[0]?.account, account)
        assert.deepStrictEqual(budgets[0]?.usage, used)
        // A grant expiring at `now` is no longer in force.
        assert.sameMembers([...(budgets[0]?.activeFeatures ?? [])], ["ai.basic", "ai.standard"])
        assert.deepStrictEqual(budgets[1], { account: BillingAccount.empty(bare.id), usage: MonthlyUsage.empty(bare.id, march), activeFeatures: [] })
        assert.deepStrictEqual(budgets[2]?.account, account)
        assert.deepStrictEqual(budgets[2]?.usage, MonthlyUsage.empty(funded.id, april))
        // Nothing was created for the workspace without an account.
        assert.deepStrictEqual(yield* billing.monthlyUsage(bare.id, march), MonthlyUsage.empty(bare.id, march))
      }))

    it.effect("lockBudgets that waited for another batch's lock reads what that batch committed, meters included", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const tx = yield* Transactor
        const workspace = yield* seedWorkspace
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(workspace.id), creditBalanceMicros: 10_000 }))
        const keys = [{ workspaceId: workspace.id, month: january }] as const
        // The first batch holds the lock until the second waits for it.
        const { waited: [budget] } = yield* whileHeld(
          (waitedOn) =>
            repo.lockBudgets(keys, at(0)).pipe(
              Effect.andThen(repo.insertReserved([reservedTask(workspace.id, 300)], { entries: [], events: [] })),
              Effect.andThen(waitedOn)
            ),
          tx.withTransaction(repo.lockBudgets(keys, at(0)))
        )
        assert.strictEqual(budget?.account.reservedMicros, 300)
        assert.strictEqual(budget?.usage.reservedMicros, 300)
        assert.strictEqual(budget?.usage.taskCount, 1)
      }))

    it.effect("lockTasks returns each task as it now stands, and leaves out one never stored or of another workspace", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const tx = yield* Transactor
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const [stale, kept] = yield* insertAll([reservedTask(workspace.id, 10), reservedTask(workspace.id, 20)])
        if (stale === undefined || kept === undefined) return assert.fail("two tasks were inserted")
        // Another worker finished the first meanwhile; the caller still holds its queued copy.
        const finished = new AiTask({
          ...stale, status: "succeeded", output: Option.some("done"), inputTokens: Option.some(3), outputTokens: Option.some(4),
          costMicros: Option.some(5), attempts: 2, nextAttemptAt: Option.none(), startedAt: Option.some(at(1)), finishedAt: Option.some(at(2))
        })
        yield* repo.update(finished)
        const missing = reservedTask(workspace.id, 30)
        const elsewhere = new AiTask({ ...kept, workspaceId: other.id })
        const locked = yield* tx.withTransaction(repo.lockTasks([stale, missing, kept, elsewhere]))
        assert.deepStrictEqual(locked, [finished, kept])
      }))

    it.effect("chargeSettled moves accounts and months by the charges, never below zero, and answers each month with its account", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const tx = yield* Transactor
        const one = yield* seedWorkspace
        const bare = yield* seedWorkspace
        const capped = new BillingAccount({ workspaceId: one.id, creditBalanceMicros: 10_000, reservedMicros: 900, spendCapMicros: Option.some(50), taskCap: Option.none() })
        yield* billing.saveAccount(capped)
        yield* billing.saveMonthlyUsage(new MonthlyUsage({ workspaceId: one.id, month: march, spentMicros: 7, reservedMicros: 600, taskCount: 3, capNotices: ["ai_tasks"] }))
        const budgets = yield* tx.withTransaction(repo.chargeSettled([
          { workspaceId: one.id, month: march, costMicros: 40, releasedMicros: 500, releasedTasks: 1 },
          // A month with no meters yet starts empty; a release beyond what is held stops at zero.
          { workspaceId: one.id, month: april, costMicros: 5, releasedMicros: 300, releasedTasks: 2 },
          // A workspace without an account gets an empty one, charged to zero at most.
          { workspaceId: bare.id, month: march, costMicros: 3, releasedMicros: 3, releasedTasks: 0 }
        ]))
        const account = new BillingAccount({ ...capped, creditBalanceMicros: 10_000 - 45, reservedMicros: 100 })
        const marchAfter = new MonthlyUsage({ workspaceId: one.id, month: march, spentMicros: 47, reservedMicros: 100, taskCount: 2, capNotices: ["ai_tasks"] })
        const aprilAfter = new MonthlyUsage({ workspaceId: one.id, month: april, spentMicros: 5, reservedMicros: 0, taskCount: 0, capNotices: [] })
        const bareAfter = new MonthlyUsage({ workspaceId: bare.id, month: march, spentMicros: 3, reservedMicros: 0, taskCount: 0, capNotices: [] })
        assert.sameDeepMembers([...budgets], [
          { account, usage: marchAfter },
          { account, usage: aprilAfter },
          { account: BillingAccount.empty(bare.id), usage: bareAfter }
        ])
        assert.deepStrictEqual(yield* billing.account(one.id), account)
        assert.deepStrictEqual(yield* billing.monthlyUsage(one.id, march), marchAfter)
        assert.deepStrictEqual(yield* billing.monthlyUsage(one.id, april), aprilAfter)
        assert.deepStrictEqual(yield* billing.monthlyUsage(bare.id, march), bareAfter)
      }))

    it.effect("chargeSettled that waited for a submission's lock charges what that submission committed", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const tx = yield* Transactor
        const workspace = yield* seedWorkspace
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(workspace.id), creditBalanceMicros: 10_000 }))
        // The submission holds the lock until the charge waits for it.
        const { waited: [budget] } = yield* whileHeld(
          (waitedOn) =>
            repo.lockBudgets([{ workspaceId: workspace.id, month: january }], at(0)).pipe(
              Effect.andThen(repo.insertReserved([reservedTask(workspace.id, 300), reservedTask(workspace.id, 200)], { entries: [], events: [] })),
              Effect.andThen(waitedOn)
            ),
          tx.withTransaction(
            repo.chargeSettled([{ workspaceId: workspace.id, month: january, costMicros: 10, releasedMicros: 300, releasedTasks: 0 }])
          )
        )
        assert.deepStrictEqual(budget?.account, new BillingAccount({ ...BillingAccount.empty(workspace.id), creditBalanceMicros: 9_990, reservedMicros: 200 }))
        assert.deepStrictEqual(budget?.usage, new MonthlyUsage({ workspaceId: workspace.id, month: january, spentMicros: 10, reservedMicros: 200, taskCount: 2, capNotices: [] }))
      }))

    it.effect("insertReserved stores the tasks and adds their reservations to accounts and month meters as increments", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const one = yield* seedWorkspace
        const two = yield* seedWorkspace
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(one.id), creditBalanceMicros: 10_000, reservedMicros: 100 }))
        yield* billing.saveMonthlyUsage(new MonthlyUsage({ workspaceId: one.id, month: january, spentMicros: 7, reservedMicros: 100, taskCount: 1, capNotices: ["ai_spend"] }))
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(two.id), creditBalanceMicros: 500 }))
        const tasks = [reservedTask(one.id, 300), reservedTask(two.id, 50), reservedTask(one.id, 200)] as const
        const entries = [makeAuditEntry(one.id, at(1)), makeAuditEntry(two.id, at(2))] as const
        const events = [makeEvent(one.id, at(3))]
        yield* repo.insertReserved(tasks, { entries, events })
        for (const task of tasks) assert.deepStrictEqual(yield* repo.findById(task.workspaceId, task.id), Option.some(task))
        // The batch's audit entries and events are stored with it.
        assert.deepStrictEqual((yield* (yield* AuditLog).list(one.id, { limit: 10, cursor: undefined })).data, [entries[0]])
        assert.deepStrictEqual((yield* (yield* AuditLog).list(two.id, { limit: 10, cursor: undefined })).data, [entries[1]])
        assert.deepStrictEqual((yield* (yield* EventOutbox).list(one.id, { limit: 10, cursor: undefined })).data, events)
        assert.strictEqual((yield* billing.account(one.id)).reservedMicros, 600)
        assert.strictEqual((yield* billing.account(two.id)).reservedMicros, 50)
        assert.deepStrictEqual(
          yield* billing.monthlyUsage(one.id, january),
          new MonthlyUsage({ workspaceId: one.id, month: january, spentMicros: 7, reservedMicros: 600, taskCount: 3, capNotices: ["ai_spend"] })
        )
        assert.deepStrictEqual(
          yield* billing.monthlyUsage(two.id, january),
          new MonthlyUsage({ workspaceId: two.id, month: january, spentMicros: 0, reservedMicros: 50, taskCount: 1, capNotices: [] })
        )
      }))

    it.effect("insertReserved writes nothing of a batch that reserves beyond a balance (a defect) or without an account (answered as such)", () =>
      Effect.gen(function*() {
        const repo = yield* AiTaskRepository
        const billing = yield* BillingRepository
        const funded = yield* seedWorkspace
        const bare = yield* seedWorkspace
        yield* billing.saveAccount(new BillingAccount({ ...BillingAccount.empty(funded.id), creditBalanceMicros: 500 }))
        const changes = { entries: [makeAuditEntry(funded.id, at(1))], events: [makeEvent(funded.id, at(2))] }
        const beyond = [reservedTask(funded.id, 100), reservedTask(funded.id, 401)] as const
        const exit = yield* Effect.exit(repo.insertReserved(beyond, changes))
        assert.isTrue(Exit.hasDies(exit), "a reservation the domain could never make is a bug, not a state")
        const unaccounted = [reservedTask(funded.id, 100), reservedTask(bare.id, 1)] as const
        const refused = yield* repo.insertReserved(unaccounted, changes, [{ key: "k", requestHash: "h", taskId: unaccounted[0].id }]).pipe(Effect.flip)
        assert.deepStrictEqual(refused, new ReservationsNotWritten({ withoutAccount: [bare.id], keysInUse: [] }))
        for (const task of [...beyond, ...unaccounted]) assert.isTrue(Option.isNone(yield* repo.findById(task.workspaceId, task.id)))
        assert.deepStrictEqual(yield* repo.findIdempotencyKeys([{ workspaceId: funded.id, key: "k" }], at(1)), [])
        assert.deepStrictEqual((yield* (yield* AuditLog).list(funded.id, { limit: 10, cursor: undefined })).data, [])
        assert.deepStrictEqual((yield* (yield* EventOutbox).list(funded.id, { limit: 10, cursor: undefined })).data, [])
        assert.strictEqual((yield* billing.account(funded.id)).reservedMicros, 0)
        assert.deepStrictEqual(yield* billing.monthlyUsage(funded.id, january), MonthlyUsage.empty(funded.id, january))
      }))

    it.effect("audit entries and events appended as a batch are listed like those appended one by one", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        const outbox = yield* EventOutbox
        const workspace = yield* seedWorkspace
        const entry = (i: number) =>
          new AuditEntry({
            id: AuditEntryId.make(`aud_${token()}`),
            workspaceId: workspace.id,
            actor: { type: "api_key", id: `key_${i}` },
            action: "ai_task.submitted",
            target: `task_${i}`,
            createdAt: at(i),
            requestId: i === 0 ? Option.none() : Option.some(`req_${i}`)
          })
        const event = (i: number) =>
          new DomainEvent({ id: EventId.make(`evt_${token()}`), type: "ai_task.succeeded", workspaceId: workspace.id, createdAt: at(i), data: { n: i, text: "héllo €" } })
        const entries = [entry(0), entry(1), entry(2)] as const
        const events = [event(0), event(1)] as const
        yield* audit.appendAll(entries)
        yield* outbox.appendAll(events)
        assert.deepStrictEqual((yield* audit.list(workspace.id, { limit: 10, cursor: undefined })).data, [...entries].reverse())
        assert.deepStrictEqual((yield* outbox.list(workspace.id, { limit: 10, cursor: undefined })).data, [...events].reverse())
      }))

    it.effect("the account is a lock: concurrent read-modify-write transactions lose no update", () =>
      Effect.gen(function*() {
        const billing = yield* BillingRepository
        const tx = yield* Transactor
        const workspace = yield* seedWorkspace
        const addOne = (account: BillingAccount) => billing.saveAccount(new BillingAccount({ ...account, creditBalanceMicros: account.creditBalanceMicros + 1 }))
        const credit = tx.withTransaction(Effect.flatMap(billing.account(workspace.id), addOne))
        // The account exists, so what the second waits for is the first's lock on it, not its insert.
        yield* credit
        // One has read the balance and holds it until another reads it too: that one waits, and reads the first's sum.
        yield* whileHeld((waitedOn) => billing.account(workspace.id).pipe(Effect.tap(waitedOn), Effect.flatMap(addOne)), credit)
        assert.strictEqual((yield* billing.account(workspace.id)).creditBalanceMicros, 3)
        yield* Effect.all(Array.from({ length: 21 }, () => credit), { concurrency: "unbounded", discard: true })
        assert.strictEqual((yield* billing.account(workspace.id)).creditBalanceMicros, 24)
      }))

    it.effect("monthly usage starts empty and is stored per workspace and month", () =>
      Effect.gen(function*() {
        const billing = yield* BillingRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        assert.deepStrictEqual(yield* billing.monthlyUsage(workspace.id, march), MonthlyUsage.empty(workspace.id, march))
        const used = new MonthlyUsage({ workspaceId: workspace.id, month: march, spentMicros: 40, reservedMicros: 8_000_000_000_000, taskCount: 3, capNotices: [] })
        yield* billing.saveMonthlyUsage(used)
        assert.deepStrictEqual(yield* billing.monthlyUsage(workspace.id, march), used)
        const capped = new MonthlyUsage({ ...used, spentMicros: 100, reservedMicros: 0, taskCount: 4, capNotices: ["ai_spend", "ai_tasks"] })
        yield* billing.saveMonthlyUsage(capped)
        assert.deepStrictEqual(yield* billing.monthlyUsage(workspace.id, march), capped)
        assert.deepStrictEqual(yield* billing.monthlyUsage(workspace.id, april), MonthlyUsage.empty(workspace.id, april))
        assert.deepStrictEqual(yield* billing.monthlyUsage(other.id, march), MonthlyUsage.empty(other.id, march))
      }))

    it.effect("usage records are one per task and list newest first by cursor, within their workspace", () =>
      Effect.gen(function*() {
        const billing = yield* BillingRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        // Two records share a timestamp: the cursor must still split them exactly once.
        const records = [1, 2, 2, 3, 4].map((s) => makeUsageRecord(workspace.id, at(s), { costMicros: s * 1_000_000_000_000 }))
        yield* Effect.forEach(records, billing.insertUsageRecord, { discard: true })
        yield* billing.insertUsageRecord(makeUsageRecord(other.id, at(3)))
        const [first] = records
        if (first === undefined) return assert.fail("no record")
        // A second record for the same task (a settle that ran twice) is ignored; the first stays.
        yield* billing.insertUsageRecord(makeUsageRecord(workspace.id, at(9), { taskId: first.taskId, costMicros: 999 }))
        const pages = yield* collectPages((page) => billing.listUsageRecords(workspace.id, page), 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
        const newestFirst = [...records].sort((a, b) =>
          DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.taskId < b.taskId ? 1 : -1)
        )
        assert.deepStrictEqual(pages.flat(), newestFirst)
        const elsewhere = yield* billing.listUsageRecords(WorkspaceId.make(`ws_${token()}`), { limit: 10, cursor: undefined })
        assert.deepStrictEqual(elsewhere, { data: [], nextCursor: null })
      }))
  })
