import { Array as Arr, DateTime, Effect, Option } from "effect"
import type { Scope } from "effect"
import { type Change, ChangeLog, emit } from "../audit/index.ts"
import { BillingEvents, BillingRepository, type MonthlyUsage } from "../billing/index.ts"
import { makeBatchedCall, systemActor, Transactor, type Unavailable } from "../shared/index.ts"
import { announceCaps, type CapReached, type SettledTask, type SettlementCharge, settleTask, type SettlementOutcome, sumCharges } from "./ai-settlement.ts"
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
 * tasks and stores finished those still unfinished, with their audit entries and events, in one statement (and the
 * subscribers react to those), and only then takes the billing locks of its workspaces, which every submission of those
 * workspaces waits for, to charge them: one statement before the commit.
 */
export const makeSettlements = (options: { readonly maxBatch: number; readonly writers: number }) =>
  Effect.gen(function*() {
    const tasks = yield* AiTaskRepository
    const billing = yield* BillingRepository
    const tx = yield* Transactor
    const changes = yield* ChangeLog

    const settleAll = Effect.fnUntraced(function*(items: Arr.NonEmptyReadonlyArray<PendingSettlement>) {
      const now = yield* DateTime.now
      // Each task settled from its first claimed copy in the group; a second copy (a redelivered claim) is answered with it.
      const seen = new Set<string>()
      const finished: Array<AiTask> = []
      const settled: Array<SettledTask> = []
      const recorded: Array<Change> = []
      for (const { claimed, outcome } of items) {
        if (claimed.isFinished || seen.has(claimed.id)) continue
        seen.add(claimed.id)
        const done = settleTask(claimed, outcome, now)
        finished.push(done.task)
        settled.push(done)
        recorded.push(finishedChange(done.task))
      }
      if (!Arr.isReadonlyArrayNonEmpty(finished)) return Arr.map(items, ({ claimed }) => claimed)
      // One statement locks the tasks and stores finished those no other worker finished meanwhile, with their trail;
      // the subscribers hear only of those.
      const saved = yield* changes.recordAllWith(
        recorded,
        (written) => tasks.saveFinished({ tasks: finished, records: settled.flatMap((done) => Option.toArray(done.record)), changes: written }),
        (saved, i) => saved.some((one) => one.written && one.task.id === finished[i]?.id)
      )
      const current = new Map(saved.map((one) => [one.task.id, one]))
      const charges: Array<SettlementCharge> = []
      for (const done of settled) {
        const stored = current.get(done.task.id)
        if (stored === undefined || !stored.written) continue
        charges.push(done.charge)
        if (Option.isSome(done.task.error)) {
          // One line per failed task for operators: ids, model and error code (the message is the caller's, not logged).
          yield* Effect.logWarning("AI task failed").pipe(Effect.annotateLogs({
            taskId: done.task.id,
            workspaceId: done.task.workspaceId,
            model: done.task.model,
            errorCode: done.task.error.value.code,
            attempts: stored.task.attempts
          }))
        }
      }
      // Each call answers its task as it now stands; one that is gone (or of another workspace), as it was claimed.
      const results = Arr.map(items, ({ claimed }) => current.get(claimed.id)?.task ?? claimed)
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
