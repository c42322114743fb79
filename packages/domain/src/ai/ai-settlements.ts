import { Array as Arr, DateTime, Effect, Option } from "effect"
import type { Scope } from "effect"
import { type Change, ChangeLog, emit } from "../audit/index.ts"
import { BillingEvents, BillingRepository, type MonthlyUsage, type UsageRecord } from "../billing/index.ts"
import { makeBatchedCall, systemActor, Transactor, type Unavailable } from "../shared/index.ts"
import { announceCaps, type CapReached, type SettlementCharge, settleTask, type SettlementOutcome, sumCharges } from "./ai-settlement.ts"
import type { AiTask } from "./ai-task.ts"
import { AiTaskEvents } from "./ai-task-events.ts"
import { AiTaskRepository } from "./ai-task-repository.ts"

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

// The change a finished task leaves: its audit entry and `ai_task.succeeded` or `ai_task.failed`, made for its submitter.
const finishedChange = (task: AiTask): Change => {
  const finishedAt = DateTime.formatIso(Option.getOrElse(task.finishedAt, () => task.createdAt))
  const base = { workspaceId: task.workspaceId, actor: runnerActor, action: `ai_task.${task.status}`, target: task.id, onBehalfOf: task.submittedBy }
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

/**
 * Settlements in groups, running for the enclosing scope: while one group commits the next gathers. A group locks its
 * tasks, stores them finished with their audit entries and events (and the subscribers react), and only then takes the
 * billing locks of its workspaces, which every submission of those workspaces waits for, to charge them: one statement
 * before the commit.
 */
export const makeSettlements = (options: { readonly maxBatch: number; readonly writers: number }) =>
  Effect.gen(function*() {
    const tasks = yield* AiTaskRepository
    const billing = yield* BillingRepository
    const tx = yield* Transactor
    const changes = yield* ChangeLog

    const settleAll = Effect.fnUntraced(function*(items: Arr.NonEmptyReadonlyArray<PendingSettlement>) {
      const copies = Arr.dedupeWith(Arr.map(items, (item) => item.claimed), (a, b) => a.id === b.id)
      const current = new Map((yield* tasks.lockTasks(copies)).map((task) => [task.id, task]))
      const stored = (claimed: AiTask) => Option.filter(Option.fromNullishOr(current.get(claimed.id)), (task) => task.workspaceId === claimed.workspaceId)
      const now = yield* DateTime.now
      const results: Array<AiTask> = []
      const finished: Array<AiTask> = []
      const records: Array<UsageRecord> = []
      const recorded: Array<Change> = []
      const charges: Array<SettlementCharge> = []
      for (const { claimed, outcome } of items) {
        const found = stored(claimed)
        if (Option.isNone(found) || found.value.isFinished) {
          results.push(Option.getOrElse(found, () => claimed))
          continue
        }
        const task = found.value
        const settled = settleTask(task, outcome, now)
        current.set(task.id, settled.task)
        finished.push(settled.task)
        records.push(...Option.toArray(settled.record))
        recorded.push(finishedChange(settled.task))
        charges.push(settled.charge)
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
      if (!Arr.isReadonlyArrayNonEmpty(finished)) return results
      yield* changes.recordAllWith(recorded, (written) => tasks.saveFinished({ tasks: finished, records, changes: written }))
      const summed = sumCharges(charges)
      if (!Arr.isReadonlyArrayNonEmpty(summed)) return results
      // The billing locks, last. A cap reached is noted and announced under them, so once per month.
      const budgets = yield* tasks.chargeSettled(summed)
      const capChanges: Array<Change> = []
      for (const budget of budgets) {
        const announced = announceCaps(budget)
        if (announced.capsReached.length === 0) continue
        yield* billing.saveMonthlyUsage(announced.usage)
        capChanges.push(...announced.capsReached.map((reached) => capChange(announced.usage, reached)))
      }
      if (capChanges.length > 0) yield* changes.recordAll(capChanges)
      return results
    })

    const batched = yield* makeBatchedCall((items: Arr.NonEmptyReadonlyArray<PendingSettlement>) => tx.withTransaction(settleAll(items)), options)
    const settlements: Settlements = { settle: (claimed, outcome) => batched.call({ claimed, outcome }) }
    return settlements
  }) satisfies Effect.Effect<Settlements, never, Scope.Scope | AiTaskRepository | BillingRepository | Transactor | ChangeLog>
