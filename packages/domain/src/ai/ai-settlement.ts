import { type DateTime, Option } from "effect"
import { BillingAccount, type CapMeter, monthOf, MonthlyUsage, UsageRecord } from "../billing/index.ts"
import type { AiCompletion } from "./ai-completion.ts"
import { actualCostMicros } from "./ai-pricing.ts"
import { AiTask, type AiTaskError } from "./ai-task.ts"
import type { ModelSpec } from "./model-catalog.ts"

/** How a provider call ended, as settlement records it. */
export type SettlementOutcome =
  | { readonly _tag: "Succeeded"; readonly spec: ModelSpec; readonly completion: AiCompletion }
  | { readonly _tag: "Failed"; readonly error: AiTaskError }

/** A workspace's money for one month as settlement reads it under the billing lock: the account and the month's meters. */
export interface SettlementBudget {
  readonly account: BillingAccount
  readonly usage: MonthlyUsage
}

/** A meter whose monthly cap a settlement reached, announced once per month. */
export interface CapReached {
  readonly meter: CapMeter
  readonly cap: number
  readonly used: number
}

/** What settling one task changes: the finished task, its usage record (when it succeeded), the budget after it, caps newly reached. */
export interface SettledTask {
  readonly task: AiTask
  readonly record: Option.Option<UsageRecord>
  readonly budget: SettlementBudget
  readonly capsReached: ReadonlyArray<CapReached>
}

// The meters at or past their cap and not yet announced this month; the usage notes them as announced.
const announceCaps = (account: BillingAccount, usage: MonthlyUsage): { readonly usage: MonthlyUsage; readonly capsReached: ReadonlyArray<CapReached> } => {
  const reached: Array<CapReached> = []
  if (Option.isSome(account.spendCapMicros) && usage.spentMicros >= account.spendCapMicros.value) {
    reached.push({ meter: "ai_spend", cap: account.spendCapMicros.value, used: usage.spentMicros })
  }
  if (Option.isSome(account.taskCap) && usage.taskCount >= account.taskCap.value) {
    reached.push({ meter: "ai_tasks", cap: account.taskCap.value, used: usage.taskCount })
  }
  const fresh = reached.filter((r) => !usage.capNotices.includes(r.meter))
  return {
    capsReached: fresh,
    usage: fresh.length === 0 ? usage : new MonthlyUsage({ ...usage, capNotices: [...usage.capNotices, ...fresh.map((r) => r.meter)] })
  }
}

/**
 * Settles an unfinished task at `now`: its reservation leaves the account and its month's meters; a success is charged
 * its real cost (never above the reservation) and may reach a cap, a failure costs nothing and gives its task slot back.
 */
export const settleTask = (current: AiTask, outcome: SettlementOutcome, budget: SettlementBudget, now: DateTime.Utc): SettledTask => {
  const { account, usage } = budget
  const costMicros = outcome._tag === "Succeeded"
    ? actualCostMicros(outcome.spec, { inputTokens: outcome.completion.inputTokens, outputTokens: outcome.completion.outputTokens }, current.reservedMicros)
    : 0
  const charged = new BillingAccount({
    ...account,
    creditBalanceMicros: Math.max(0, account.creditBalanceMicros - costMicros),
    reservedMicros: Math.max(0, account.reservedMicros - current.reservedMicros)
  })
  const monthReservedMicros = Math.max(0, usage.reservedMicros - current.reservedMicros)
  if (outcome._tag === "Failed") {
    const failed = new AiTask({
      ...current,
      status: "failed",
      costMicros: Option.some(0),
      error: Option.some(outcome.error),
      nextAttemptAt: Option.none(),
      finishedAt: Option.some(now)
    })
    return {
      task: failed,
      record: Option.none(),
      budget: { account: charged, usage: new MonthlyUsage({ ...usage, reservedMicros: monthReservedMicros, taskCount: Math.max(0, usage.taskCount - 1) }) },
      capsReached: []
    }
  }
  const { inputTokens, output, outputTokens } = outcome.completion
  const succeeded = new AiTask({
    ...current,
    status: "succeeded",
    output: Option.some(output),
    inputTokens: Option.some(inputTokens),
    outputTokens: Option.some(outputTokens),
    costMicros: Option.some(costMicros),
    error: Option.none(),
    nextAttemptAt: Option.none(),
    finishedAt: Option.some(now)
  })
  const record = new UsageRecord({
    taskId: succeeded.id,
    workspaceId: succeeded.workspaceId,
    model: succeeded.model,
    inputTokens,
    outputTokens,
    costMicros,
    month: monthOf(current.createdAt),
    createdAt: now
  })
  const spent = new MonthlyUsage({ ...usage, spentMicros: usage.spentMicros + costMicros, reservedMicros: monthReservedMicros })
  const announced = announceCaps(charged, spent)
  return { task: succeeded, record: Option.some(record), budget: { account: charged, usage: announced.usage }, capsReached: announced.capsReached }
}
