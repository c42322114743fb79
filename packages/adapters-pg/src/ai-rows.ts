import { AiTask, BillingAccount, MonthlyUsage, UsageRecord } from "@atrium/domain"
import { Schema } from "effect"
import { MicrosFromBigInt } from "./bigint-micros.ts"

/** The `ai_tasks` row as the driver returns it: `jsonb` parsed, `timestamptz` as `Date`, money as `bigint`. */
export const AiTaskRow = Schema.Struct({
  ...AiTask.fields,
  costMicros: Schema.OptionFromNullOr(MicrosFromBigInt),
  reservedMicros: MicrosFromBigInt,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  startedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  finishedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  maxOutputTokens: "max_output_tokens",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  costMicros: "cost_micros",
  reservedMicros: "reserved_micros",
  nextAttemptAt: "next_attempt_at",
  submittedBy: "submitted_by",
  scheduleId: "schedule_id",
  createdAt: "created_at",
  startedAt: "started_at",
  finishedAt: "finished_at"
}))

/** The `billing_accounts` row as the driver returns it. */
export const BillingAccountRow = Schema.Struct({
  ...BillingAccount.fields,
  creditBalanceMicros: MicrosFromBigInt,
  reservedMicros: MicrosFromBigInt,
  spendCapMicros: Schema.OptionFromNullOr(MicrosFromBigInt)
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
  reservedMicros: MicrosFromBigInt
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
