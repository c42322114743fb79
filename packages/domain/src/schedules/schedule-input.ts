import { Schema } from "effect"
import { AiTaskRequest } from "../ai/index.ts"
import { Instant as BoundedInstant, SafeText } from "../shared/index.ts"
import { CronExpression, TimeZoneName } from "./schedule-cron.ts"
import { CatchUp, Overlap } from "./schedule.ts"

const Name = SafeText.check(Schema.isBetweenLength(1, 100)).annotate({ description: "What the schedule is for", examples: ["Weekly summary"] })
/** The most runs a schedule may be limited to; `null` is no limit. */
export const maxRunsLimit = 1_000_000
const Instant = BoundedInstant.annotate({ description: "ISO-8601 time, within years 1 to 9999" })
// Bounded by a filter, not `maximum`: values past it never worked (500), so refusing them breaks no client.
// The documented check goes last: the description sits on it, and a bare filter is not rendered.
const MaxRuns = Schema.Int.check(
  Schema.makeFilter((runs: number) => runs <= maxRunsLimit || `must be at most ${maxRunsLimit}`),
  Schema.isGreaterThanOrEqualTo(1)
).annotate({ description: `Stop after this many runs that submitted a task (at most ${maxRunsLimit.toLocaleString("en")})` })

/** A new schedule, as `POST /api/v1/schedules` takes it; cron and time zone are checked by the schema itself. */
export const CreateScheduleInput = Schema.Struct({
  name: Name,
  cron: CronExpression,
  timezone: TimeZoneName,
  task: AiTaskRequest,
  enabled: Schema.optionalKey(Schema.Boolean.annotate({ description: "Default true; false creates it paused (`manual`)" })),
  catchUp: Schema.optionalKey(CatchUp),
  overlap: Schema.optionalKey(Overlap),
  startsAt: Schema.optionalKey(Schema.NullOr(Instant)),
  endsAt: Schema.optionalKey(Schema.NullOr(Instant)),
  maxRuns: Schema.optionalKey(Schema.NullOr(MaxRuns))
}).annotate({ identifier: "CreateSchedule" })
export type CreateScheduleInput = typeof CreateScheduleInput.Type

/** A partial change of a schedule (`PATCH`): absent fields stay; `null` clears `startsAt`, `endsAt` or `maxRuns`. */
export const UpdateScheduleInput = Schema.Struct({
  name: Schema.optionalKey(Name),
  cron: Schema.optionalKey(CronExpression),
  timezone: Schema.optionalKey(TimeZoneName),
  task: Schema.optionalKey(AiTaskRequest),
  enabled: Schema.optionalKey(Schema.Boolean.annotate({ description: "false pauses (`manual`), true resumes" })),
  catchUp: Schema.optionalKey(CatchUp),
  overlap: Schema.optionalKey(Overlap),
  startsAt: Schema.optionalKey(Schema.NullOr(Instant)),
  endsAt: Schema.optionalKey(Schema.NullOr(Instant)),
  maxRuns: Schema.optionalKey(Schema.NullOr(MaxRuns))
}).annotate({ identifier: "UpdateSchedule" })
export type UpdateScheduleInput = typeof UpdateScheduleInput.Type
