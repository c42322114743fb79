import { AiTask, BillingAccount } from "@atrium/domain"
import { Schema } from "effect"
import { CountFromBigInt, MaxOutputTokensFromBigInt, MicrosFromBigInt } from "../shared/bigint-columns.ts"

/** The `ai_tasks` row as the driver returns it: `jsonb` parsed, `timestamptz` as `Date`, money as `bigint`. */
export const AiTaskRow = Schema.Struct({
  ...AiTask.fields,
  maxOutputTokens: MaxOutputTokensFromBigInt,
  inputTokens: Schema.OptionFromNullOr(CountFromBigInt),
  outputTokens: Schema.OptionFromNullOr(CountFromBigInt),
  attempts: CountFromBigInt,
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

/** What claims and settlements change of an `ai_tasks` row, as a settlement reads it under its lock. */
export const AiTaskProgressRow = Schema.Struct({
  id: AiTask.fields.id,
  workspaceId: AiTask.fields.workspaceId,
  status: AiTask.fields.status,
  output: AiTask.fields.output,
  inputTokens: Schema.OptionFromNullOr(CountFromBigInt),
  outputTokens: Schema.OptionFromNullOr(CountFromBigInt),
  costMicros: Schema.OptionFromNullOr(MicrosFromBigInt),
  error: AiTask.fields.error,
  attempts: CountFromBigInt,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  startedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  finishedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  costMicros: "cost_micros",
  nextAttemptAt: "next_attempt_at",
  startedAt: "started_at",
  finishedAt: "finished_at"
}))

/** A budget's account as `lockBudgets` returns it, beside the meters in the same row (hence `account_reserved_micros`). */
export const LockedAccountRow = Schema.Struct({
  ...BillingAccount.fields,
  creditBalanceMicros: MicrosFromBigInt,
  reservedMicros: MicrosFromBigInt,
  spendCapMicros: Schema.OptionFromNullOr(MicrosFromBigInt),
  taskCap: Schema.OptionFromNullOr(CountFromBigInt)
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  creditBalanceMicros: "credit_balance_micros",
  reservedMicros: "account_reserved_micros",
  spendCapMicros: "spend_cap_micros",
  taskCap: "task_cap"
}))
