import { type DateTime, Option } from "effect"
import { BillingAccount, type CapMeter, monthOf, MonthlyUsage, type UsageMonth, UsageRecord } from "../billing/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import type { AiCompletion } from "./ai-completion.ts"
import { actualCostMicros } from "./ai-pricing.ts"
import { AiTask, type AiTaskError } from "./ai-task.ts"
import type { ModelSpec } from "./model-catalog.ts"

/** How a provider call ended, as settlement records it. */
export type SettlementOutcome =
  | { readonly _tag: "Succeeded"; readonly spec: ModelSpec; readonly completion: AiCompletion }
  | { readonly _tag: "Failed"; readonly error: AiTaskError }

/** A workspace's money for one month under its billing lock: the account and the month's meters. */
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

/** What settling one task moves of its month's money: its cost charged, its reservation released, a failure's task slot given back. */
export interface SettlementCharge {
  readonly workspaceId: WorkspaceId
  readonly month: UsageMonth
  readonly costMicros: number
  readonly releasedMicros: number
  readonly releasedTasks: number
}

/** What settling one task changes: the finished task, its usage record (when it succeeded), and its charge. */
export interface SettledTask {
  readonly task: AiTask
  readonly record: Option.Option<UsageRecord>
  readonly charge: SettlementCharge
}

/** The charges of many tasks, one per workspace and month (their sums), in the order each month first appears. */
export const sumCharges = (charges: ReadonlyArray<SettlementCharge>): ReadonlyArray<SettlementCharge> => {
  const sums = new Map<string, SettlementCharge>()
  for (const charge of charges) {
    const key = `${charge.workspaceId}/${charge.month}`
    const sum = sums.get(key)
    sums.set(key, sum === undefined ? charge : {
      ...sum,
      costMicros: sum.costMicros + charge.costMicros,
      releasedMicros: sum.releasedMicros + charge.releasedMicros,
      releasedTasks: sum.releasedTasks + charge.releasedTasks
    })
  }
  return [...sums.values()]
}

/** A month's money after a charge, as the database applies it: nothing goes below zero. */
export const chargeBudget = (budget: SettlementBudget, charge: SettlementCharge): SettlementBudget => ({
  account: new BillingAccount({
    ...budget.account,
    creditBalanceMicros: Math.max(0, budget.account.creditBalanceMicros - charge.costMicros),
    reservedMicros: Math.max(0, budget.account.reservedMicros - charge.releasedMicros)
  }),
  usage: new MonthlyUsage({
    ...budget.usage,
    spentMicros: budget.usage.spentMicros + charge.costMicros,
    reservedMicros: Math.max(0, budget.usage.reservedMicros - charge.releasedMicros),
    taskCount: Math.max(0, budget.usage.taskCount - charge.releasedTasks)
  })
})

/** The meters of `budget` at or past their cap and not yet announced this month; the usage notes them as announced. */
export const announceCaps = (budget: SettlementBudget): { readonly usage: MonthlyUsage; readonly capsReached: ReadonlyArray<CapReached> } => {
  const { account, usage } = budget
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
 * its real cost (never above the reservation), a failure costs nothing and gives its task slot back.
 */
export const settleTask = (current: AiTask, outcome: SettlementOutcome, now: DateTime.Utc): SettledTask => {
  const month = monthOf(current.createdAt)
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
      charge: { workspaceId: current.workspaceId, month, costMicros: 0, releasedMicros: current.reservedMicros, releasedTasks: 1 }
    }
  }
  const { inputTokens, output, outputTokens } = outcome.completion
  const costMicros = actualCostMicros(outcome.spec, { inputTokens, outputTokens }, current.reservedMicros)
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
    month,
    createdAt: now
  })
  return {
    task: succeeded,
    record: Option.some(record),
    charge: { workspaceId: current.workspaceId, month, costMicros, releasedMicros: current.reservedMicros, releasedTasks: 0 }
  }
}
