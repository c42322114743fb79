import { Option, Schema } from "effect"
import { AiTaskRequest } from "../ai/index.ts"
import { Actor, deriveView, IsoTime, ScheduleId, TaskId } from "../shared/index.ts"
import { CatchUp, Overlap, PausedReason, RunStatus, RunTrigger, Schedule, ScheduleRun, SkipReason } from "./schedule.ts"

/** What a workspace sees of a schedule. */
export const ScheduleView = Schema.Struct({
  id: ScheduleId,
  name: Schema.String,
  cron: Schema.String,
  timezone: Schema.String,
  task: AiTaskRequest,
  enabled: Schema.Boolean,
  status: Schema.Literals(["active", "paused", "ended"]).annotate({ description: "paused: see pausedReason; ended: past endsAt or maxRuns" }),
  createdBy: Actor,
  catchUp: CatchUp,
  overlap: Overlap,
  startsAt: Schema.NullOr(IsoTime),
  endsAt: Schema.NullOr(IsoTime),
  maxRuns: Schema.NullOr(Schema.Int),
  runCount: Schema.Int,
  consecutiveFailures: Schema.Int,
  nextRunAt: Schema.NullOr(IsoTime),
  lastRun: Schema.NullOr(Schema.Struct({ at: IsoTime, taskId: Schema.NullOr(TaskId), status: RunStatus })),
  pausedReason: Schema.NullOr(PausedReason),
  createdAt: IsoTime,
  updatedAt: IsoTime
}).annotate({ identifier: "Schedule", description: "Recurring AI work on a cron in an IANA time zone" })
export type ScheduleView = typeof ScheduleView.Type

/** The public view of a schedule: its workspace withheld (it is the caller's), its status worded for clients. */
const scheduleView = deriveView(Schedule, ScheduleView, { withheld: ["workspaceId"] })
export const toScheduleView = (schedule: Schedule): ScheduleView =>
  scheduleView(schedule, { status: !schedule.enabled ? "paused" : Option.isNone(schedule.nextRunAt) ? "ended" : "active" })

/** What a workspace sees of one run. */
export const ScheduleRunView = Schema.Struct({
  scheduleId: ScheduleId,
  scheduledFor: IsoTime,
  trigger: RunTrigger,
  status: RunStatus,
  taskId: Schema.NullOr(TaskId),
  reason: Schema.NullOr(SkipReason),
  firedAt: Schema.NullOr(IsoTime)
}).annotate({ identifier: "ScheduleRun", description: "One occurrence of a schedule and what it did" })
export type ScheduleRunView = typeof ScheduleRunView.Type

/** The public view of a run: its workspace and the worker's bookkeeping (claims, due time, row time) withheld. */
export const toScheduleRunView = deriveView(ScheduleRun, ScheduleRunView, { withheld: ["workspaceId", "attempts", "dueAt", "createdAt"] })
