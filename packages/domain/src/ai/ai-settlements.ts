import { Array as Arr, DateTime, Effect, Option } from "effect"
import type { Scope } from "effect"
import { type Change, ChangeLog, emit } from "../audit/index.ts"
import { BillingAccount, BillingEvents, monthOf, type MonthlyUsage, type UsageRecord } from "../billing/index.ts"
import { makeBatchedCall, systemActor, Transactor, type Unavailable } from "../shared/index.ts"
import { type CapReached, settleTask, type SettlementOutcome } from "./ai-settlement.ts"
import type { AiTask } from "./ai-task.ts"
import { AiTaskEvents } from "./ai-task-events.ts"
import { AiTaskRepository, type BudgetKey } from "./ai-task-repository.ts"

/** Settles tasks in groups; each call answers with its task as it now stands. */
export interface Settlements {
  /** Finishes `claimed` with `outcome` exactly once: a task already finished (by another worker, or before a crash) is left alone. */
  readonly settle: (claimed: AiTask, outcome: SettlementOutcome) => Effect.Effect<AiTask, Unavailable>
}

interface PendingSettlement {
  readonly claimed: AiTask
  readonly outcome: SettlementOutcome
}

const runnerActor = systemActor("ai-tasks")

// `ai_task.*` payloads name the schedule of a scheduled task, and carry no such key otherwise.
const scheduleOf = (task: AiTask): { readonly scheduleId?: string } =>
  Option.isSome(task.scheduleId) ? { scheduleId: task.scheduleId.value } : {}

// The change a finished task leaves: its audit entry and `ai_task.succeeded` or `ai_task.failed`.
const finishedChange = (task: AiTask): Change => {
  const finishedAt = DateTime.formatIso(Option.getOrElse(task.finishedAt, () => task.createdAt))
  const base = { workspaceId: task.workspaceId, actor: runnerActor, action: `ai_task.${task.status}`, target: task.id }
  if (task.status === "failed") {
    const error = Option.getOrElse(task.error, () => ({ code: "internal_error", message: "" }))
    return { ...base, event: emit(AiTaskEvents.failed, { task: { id: task.id, model: task.model, status: "failed", error, finishedAt }, ...scheduleOf(task) }) }
  }
  const usage = {
    inputTokens: Option.getOrElse(task.inputTokens, () => 0),
    outputTokens: Option.getOrElse(task.outputTokens, () => 0),
    costMicros: Option.getOrElse(task.costMicros, () => 0)
  }
  return { ...base, event: emit(AiTaskEvents.succeeded, { task: { id: task.id, model: task.model, status: "succeeded", usage, finishedAt }, ...scheduleOf(task) }) }
}

// A cap reached is announced once per month.
const capChange = (usage: MonthlyUsage, reached: CapReached): Change => ({
  workspaceId: usage.workspaceId,
  actor: runnerActor,
  action: "usage.cap_reached",
  target: reached.meter,
  event: emit(BillingEvents.capReached, { meter: reached.meter, cap: reached.cap, used: reached.used, month: usage.month })
})

const monthKey = (workspaceId: string, month: string) => `${workspaceId}/${month}`

/**
 * Settlements in groups, running for the enclosing scope: while one group commits the next gathers, so the billing
 * lock of a busy workspace is taken once per group, and a group costs a few statements (lock the tasks, lock the
 * budgets, one write) whatever its size.
 */
export const makeSettlements = (options: { readonly maxBatch: number; readonly writers: number }) =>
  Effect.gen(function*() {
    const tasks = yield* AiTaskRepository
    const tx = yield* Transactor
    const changes = yield* ChangeLog

    const settleAll = Effect.fnUntraced(function*(items: Arr.NonEmptyReadonlyArray<PendingSettlement>) {
      // A task's own row first, the workspace's billing lock last: the lock every submission needs is held the least.
      const copies = Arr.dedupeWith(Arr.map(items, (item) => item.claimed), (a, b) => a.id === b.id)
      const current = new Map((yield* tasks.lockTasks(copies)).map((task) => [task.id, task]))
      const stored = (claimed: AiTask) => Option.filter(Option.fromNullishOr(current.get(claimed.id)), (task) => task.workspaceId === claimed.workspaceId)
      const open = items.flatMap(({ claimed }) => Option.toArray(Option.filter(stored(claimed), (task) => !task.isFinished)))
      const keys = Arr.dedupeWith(
        open.map((task): BudgetKey => ({ workspaceId: task.workspaceId, month: monthOf(task.createdAt) })),
        (a, b) => a.workspaceId === b.workspaceId && a.month === b.month
      )
      if (!Arr.isReadonlyArrayNonEmpty(keys)) return items.map(({ claimed }) => Option.getOrElse(stored(claimed), () => claimed))
      const now = yield* DateTime.now
      const read = yield* tasks.lockBudgets(keys, now)
      // An account is shared by its workspace's months; each month has its meters.
      const accounts = new Map(read.map(({ account }) => [account.workspaceId, account]))
      const usages = new Map(read.map(({ usage }) => [monthKey(usage.workspaceId, usage.month), usage]))
      const results: Array<AiTask> = []
      const finished: Array<AiTask> = []
      const records: Array<UsageRecord> = []
      const recorded: Array<Change> = []
      const touched = new Set<string>()
      for (const { claimed, outcome } of items) {
        const found = stored(claimed)
        if (Option.isNone(found) || found.value.isFinished) {
          results.push(Option.getOrElse(found, () => claimed))
          continue
        }
        const task = found.value
        const key = monthKey(task.workspaceId, monthOf(task.createdAt))
        const usage = usages.get(key)
        if (usage === undefined) return yield* Effect.die(new Error("lockBudgets answered no budget for a key it was given"))
        const account = accounts.get(task.workspaceId) ?? BillingAccount.empty(task.workspaceId)
        const settled = settleTask(task, outcome, { account, usage }, now)
        current.set(task.id, settled.task)
        accounts.set(task.workspaceId, settled.budget.account)
        usages.set(key, settled.budget.usage)
        touched.add(key)
        finished.push(settled.task)
        records.push(...Option.toArray(settled.record))
        recorded.push(finishedChange(settled.task), ...settled.capsReached.map((reached) => capChange(settled.budget.usage, reached)))
        results.push(settled.task)
        if (outcome._tag === "Failed") {
          // One line per failed task for operators: ids, model and error code (the message is the caller's, not logged).
          yield* Effect.logWarning("AI task failed").pipe(Effect.annotateLogs({
            taskId: task.id,
            workspaceId: task.workspaceId,
            model: task.model,
            errorCode: outcome.error.code,
            attempts: task.attempts
          }))
        }
      }
      if (Arr.isReadonlyArrayNonEmpty(finished)) {
        const months = [...touched].flatMap((key) => Option.toArray(Option.fromNullishOr(usages.get(key))))
        const workspaces = new Set(months.map((usage) => usage.workspaceId))
        const saved = [...workspaces].flatMap((workspaceId) => Option.toArray(Option.fromNullishOr(accounts.get(workspaceId))))
        yield* changes.recordAllWith(recorded, (written) => tasks.saveSettled({ tasks: finished, records, accounts: saved, usages: months, changes: written }))
      }
      return results
    })

    const batched = yield* makeBatchedCall((items: Arr.NonEmptyReadonlyArray<PendingSettlement>) => tx.withTransaction(settleAll(items)), options)
    const settlements: Settlements = { settle: (claimed, outcome) => batched.call({ claimed, outcome }) }
    return settlements
  }) satisfies Effect.Effect<Settlements, never, Scope.Scope | AiTaskRepository | Transactor | ChangeLog>
