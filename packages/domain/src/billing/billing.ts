import { DateTime, Option, Schema } from "effect"
import { CapMeter } from "./billing-errors.ts"
import { TaskId, WorkspaceId } from "../shared/index.ts"
import { Micros } from "../shared/index.ts"
import { ModelId } from "../shared/index.ts"

/** A UTC calendar month, `YYYY-MM`: the window of spend caps and usage. */
export const UsageMonth = Schema.String.check(Schema.isPattern(/^\d{4}-(0[1-9]|1[0-2])$/)).annotate({
  description: "UTC month, YYYY-MM",
  examples: ["2025-01"]
}).pipe(Schema.brand("UsageMonth"))
export type UsageMonth = typeof UsageMonth.Type

/** The UTC month `at` falls in. */
export const monthOf = (at: DateTime.Utc): UsageMonth => UsageMonth.make(DateTime.formatIso(at).slice(0, 7))

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A workspace's money: prepaid credits, what unfinished tasks hold of them, and its monthly caps. */
export class BillingAccount extends Schema.Class<BillingAccount>("@atrium/domain/BillingAccount")({
  workspaceId: WorkspaceId,
  creditBalanceMicros: Micros,
  /** Held by unfinished tasks (of any month); the spendable balance is `creditBalanceMicros - reservedMicros`. */
  reservedMicros: Micros,
  /** Monthly AI spend cap (spent + reserved may not exceed it). */
  spendCapMicros: Schema.OptionFromNullOr(Micros),
  /** Monthly cap on AI tasks submitted (failed ones give their slot back). */
  taskCap: Schema.OptionFromNullOr(Count)
}) {
  /** A workspace that never had credits or caps. */
  static empty(workspaceId: WorkspaceId): BillingAccount {
    return new BillingAccount({
      workspaceId,
      creditBalanceMicros: 0,
      reservedMicros: 0,
      spendCapMicros: Option.none(),
      taskCap: Option.none()
    })
  }

  /** Credits not held by unfinished tasks. */
  get availableMicros(): number {
    return this.creditBalanceMicros - this.reservedMicros
  }
}

/** One workspace's meters for one UTC month; tasks count in the month they were submitted. */
export class MonthlyUsage extends Schema.Class<MonthlyUsage>("@atrium/domain/MonthlyUsage")({
  workspaceId: WorkspaceId,
  month: UsageMonth,
  /** Final cost of the month's succeeded tasks. */
  spentMicros: Micros,
  /** Worst-case cost held by the month's unfinished tasks. */
  reservedMicros: Micros,
  /** The month's tasks that have not failed (unfinished and succeeded). */
  taskCount: Count,
  /** Meters whose cap was already announced (`usage.cap_reached`) this month. */
  capNotices: Schema.Array(CapMeter)
}) {
  /** A month with nothing in it yet. */
  static empty(workspaceId: WorkspaceId, month: UsageMonth): MonthlyUsage {
    return new MonthlyUsage({ workspaceId, month, spentMicros: 0, reservedMicros: 0, taskCount: 0, capNotices: [] })
  }
}

/** The billing event of one succeeded task: what it used and cost, in the month it counts in. */
export class UsageRecord extends Schema.Class<UsageRecord>("@atrium/domain/UsageRecord")({
  taskId: TaskId,
  workspaceId: WorkspaceId,
  model: ModelId,
  inputTokens: Count,
  outputTokens: Count,
  costMicros: Micros,
  month: UsageMonth,
  createdAt: Schema.DateTimeUtc
}) {}
