import { BillingAccount, MonthlyUsage, UsageRecord } from "@atrium/domain"
import { Schema } from "effect"
import { CountFromBigInt, MicrosFromBigInt } from "../shared/bigint-columns.ts"

/** The `billing_accounts` row as the driver returns it. */
export const BillingAccountRow = Schema.Struct({
  ...BillingAccount.fields,
  creditBalanceMicros: MicrosFromBigInt,
  reservedMicros: MicrosFromBigInt,
  spendCapMicros: Schema.OptionFromNullOr(MicrosFromBigInt),
  taskCap: Schema.OptionFromNullOr(CountFromBigInt)
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  creditBalanceMicros: "credit_balance_micros",
  reservedMicros: "reserved_micros",
  spendCapMicros: "spend_cap_micros",
  taskCap: "task_cap"
}))

/** The `monthly_usage` row as the driver returns it (`cap_notices` as `text[]`). */
export const MonthlyUsageRow = Schema.Struct({
  ...MonthlyUsage.fields,
  spentMicros: MicrosFromBigInt,
  reservedMicros: MicrosFromBigInt,
  taskCount: CountFromBigInt
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  spentMicros: "spent_micros",
  reservedMicros: "reserved_micros",
  taskCount: "task_count",
  capNotices: "cap_notices"
}))

/** The `usage_records` row as the driver returns it. */
export const UsageRecordRow = Schema.Struct({
  ...UsageRecord.fields,
  inputTokens: CountFromBigInt,
  outputTokens: CountFromBigInt,
  costMicros: MicrosFromBigInt,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(Schema.encodeKeys({
  taskId: "task_id",
  workspaceId: "workspace_id",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  costMicros: "cost_micros",
  createdAt: "created_at"
}))
