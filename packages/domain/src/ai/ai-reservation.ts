import { Option, Result } from "effect"
import { BillingAccount, InsufficientCredits, MonthlyUsage, UsageCapReached } from "../billing/index.ts"
import { type Feature, NotEntitled } from "../entitlements/index.ts"

/**
 * What a submission's reservation is checked against, for one workspace and month: its account and meters as read
 * under the workspace's billing lock, and the features it holds a grant in force for.
 */
export interface SubmissionBudget {
  readonly account: BillingAccount
  readonly usage: MonthlyUsage
  readonly activeFeatures: ReadonlyArray<Feature>
}

/** Why a reservation is refused; the checks run in this order. */
export type ReservationRefusal = NotEntitled | UsageCapReached | InsufficientCredits

/**
 * Reserves the worst case `micros` of one more task needing `feature`: the budget after it (the account and the
 * month's meters hold it, the month counts the task), or the first check it fails — entitlement, spend cap, task cap,
 * credits.
 */
export const reserveTask = (
  budget: SubmissionBudget,
  feature: Feature,
  micros: number
): Result.Result<SubmissionBudget, ReservationRefusal> => {
  const { account, activeFeatures, usage } = budget
  if (!activeFeatures.includes(feature)) return Result.fail(new NotEntitled({ feature }))
  if (Option.isSome(account.spendCapMicros) && usage.spentMicros + usage.reservedMicros + micros > account.spendCapMicros.value) {
    return Result.fail(new UsageCapReached({ meter: "ai_spend" }))
  }
  if (Option.isSome(account.taskCap) && usage.taskCount + 1 > account.taskCap.value) {
    return Result.fail(new UsageCapReached({ meter: "ai_tasks" }))
  }
  if (account.availableMicros < micros) return Result.fail(new InsufficientCredits())
  return Result.succeed({
    activeFeatures,
    account: new BillingAccount({ ...account, reservedMicros: account.reservedMicros + micros }),
    usage: new MonthlyUsage({ ...usage, reservedMicros: usage.reservedMicros + micros, taskCount: usage.taskCount + 1 })
  })
}
