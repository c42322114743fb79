import { DateTime, Option, Schema } from "effect"
import { AiTaskRequest } from "../ai/index.ts"
import { Actor, IsoTime, ScheduleId, TaskId } from "../shared/index.ts"
import { CatchUp, Overlap, PausedReason, RunStatus, RunTrigger, type Schedule, type ScheduleRun, SkipReason } from "./schedule.ts"

const iso = (time: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(time, DateTime.formatIso))

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

/** The public view of a schedule. */
export const toScheduleView = (schedule: Schedule): ScheduleView => ({
  id: schedule.id,
  name: schedule.name,
  cron: schedule.cron,
  timezone: schedule.timezone,
  task: schedule.task,
  enabled: schedule.enabled,
  status: !schedule.enabled ? "paused" : Option.isNone(schedule.nextRunAt) ? "ended" : "active",
  createdBy: schedule.createdBy,
  catchUp: schedule.catchUp,
  overlap: schedule.overlap,
  startsAt: iso(schedule.startsAt),
  endsAt: iso(schedule.endsAt),
  maxRuns: Option.getOrNull(schedule.maxRuns),
  runCount: schedule.runCount,
  consecutiveFailures: schedule.consecutiveFailures,
  nextRunAt: iso(schedule.nextRunAt),
  lastRun: Option.getOrNull(Option.map(schedule.lastRun, (run) => ({
    at: DateTime.formatIso(run.at),
    taskId: Option.getOrNull(run.taskId),
    status: run.status
  }))),
  pausedReason: Option.getOrNull(schedule.pausedReason),
  createdAt: DateTime.formatIso(schedule.createdAt),
  updatedAt: DateTime.formatIso(schedule.updatedAt)
})

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

/** The public view of a run. */
export const toScheduleRunView = (run: ScheduleRun): ScheduleRunView => ({
  scheduleId: run.scheduleId,
  scheduledFor: DateTime.formatIso(run.scheduledFor),
  trigger: run.trigger,
  status: run.status,
  taskId: Option.getOrNull(run.taskId),
  reason: Option.getOrNull(run.reason),
  firedAt: iso(run.firedAt)
})
