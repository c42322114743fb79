import { AiTask } from "@atrium/domain"
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
