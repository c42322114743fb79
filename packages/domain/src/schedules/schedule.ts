import { DateTime, Option, Schema } from "effect"
import { AiTaskRequest } from "../ai/index.ts"
import { Actor, ScheduleId, TaskId, WorkspaceId } from "../shared/index.ts"
import { nextOccurrence, type ScheduleCron } from "./schedule-cron.ts"

/** Most schedules one workspace may hold. */
export const maxSchedulesPerWorkspace = 50

/** After downtime: `latest` runs the most recent missed occurrence once, `none` runs nothing until the next one. */
export const CatchUp = Schema.Literals(["none", "latest"]).annotate({
  description: "After downtime: `latest` (default) runs once for the most recent missed occurrence, `none` skips to the next"
})
export type CatchUp = typeof CatchUp.Type

/** While the previous run's task is queued or running: `skip` (default) records the occurrence as skipped, `queue` submits anyway. */
export const Overlap = Schema.Literals(["skip", "queue"]).annotate({
  description: "`skip` (default): no new run while the previous task is queued or running; `queue`: submit anyway"
})
export type Overlap = typeof Overlap.Type

/** Why a schedule stopped firing. */
export const PausedReason = Schema.Literals(["manual", "failing", "not_entitled", "insufficient_credits", "creator_removed"]).annotate({
  description: "manual: paused by a person; failing: consecutive failed runs; not_entitled / insufficient_credits: consecutive refusals for that reason; creator_removed: its creator left or is no longer an admin"
})
export type PausedReason = typeof PausedReason.Type

/** Why an occurrence did not submit a task. */
export const SkipReason = Schema.Literals(["overlap", "not_entitled", "usage_cap_reached", "insufficient_credits", "invalid_task", "missed"]).annotate({
  description:
    "overlap: the previous task was still queued or running; missed: no server ran at the time, and catch-up ran a later occurrence instead (`latest`) or none (`none`); the others: the AI task submission was refused for that reason"
})
export type SkipReason = typeof SkipReason.Type

/** Where a run stands: `pending` until fired; `started` while its task is queued or running; then final. */
export const RunStatus = Schema.Literals(["pending", "started", "succeeded", "failed", "skipped"]).annotate({
  description: "pending: not fired yet; started: its task is queued or running; succeeded/failed: its task's outcome; skipped: no task (see reason)"
})
export type RunStatus = typeof RunStatus.Type

/** The last fired run, as the schedule remembers it. */
export const LastRun = Schema.Struct({
  at: Schema.DateTimeUtc,
  taskId: Schema.OptionFromNullOr(TaskId),
  status: RunStatus
})
export type LastRun = typeof LastRun.Type

/** One recurring AI task: a cron in an IANA time zone, the task payload, and the actor it runs as. */
export class Schedule extends Schema.Class<Schedule>("@atrium/domain/Schedule")({
  id: ScheduleId,
  workspaceId: WorkspaceId,
  name: Schema.String,
  cron: Schema.String,
  timezone: Schema.String,
  /** Exactly the payload of `POST /api/v1/ai-tasks`. */
  task: AiTaskRequest,
  enabled: Schema.Boolean,
  /** Whom its tasks are submitted as: the creator (a member, or an API key). */
  createdBy: Actor,
  catchUp: CatchUp,
  overlap: Overlap,
  startsAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  endsAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  maxRuns: Schema.OptionFromNullOr(Schema.Int),
  /** Runs that submitted a task. */
  runCount: Schema.Int,
  /** Failed tasks and refused submissions since the last success. */
  consecutiveFailures: Schema.Int,
  /** The next occurrence to fire; none while paused or once ended. */
  nextRunAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  lastRun: Schema.OptionFromNullOr(LastRun),
  pausedReason: Schema.OptionFromNullOr(PausedReason),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {
  /** Enabled and not past its end: it has or will get a next run. */
  get isActive(): boolean {
    return this.enabled && !this.isEnded
  }

  /** Past `endsAt` or out of `maxRuns`. */
  get isEnded(): boolean {
    return Option.isSome(this.maxRuns) && this.runCount >= this.maxRuns.value
  }

  /** Whether the run before this one still has a task queued or running. */
  get previousRunInFlight(): boolean {
    return Option.isSome(this.lastRun) && this.lastRun.value.status === "started"
  }

  /** The first occurrence after `after` inside the schedule's window, or none when it has ended. */
  nextAfter(cron: ScheduleCron, after: DateTime.Utc): Option.Option<DateTime.Utc> {
    if (!this.isActive) return Option.none()
    const from = Option.match(this.startsAt, {
      onNone: () => after,
      // `startsAt` itself may be an occurrence: start looking just before it.
      onSome: (starts) => DateTime.max(after, DateTime.subtract(starts, { milliseconds: 1 }))
    })
    const next = nextOccurrence(cron, from)
    return Option.isSome(this.endsAt) && DateTime.isGreaterThan(next, this.endsAt.value) ? Option.none() : Option.some(next)
  }

  /** Paused for `reason`: no next run until resumed. */
  pause(reason: PausedReason, now: DateTime.Utc): Schedule {
    return new Schedule({ ...this, enabled: false, pausedReason: Option.some(reason), nextRunAt: Option.none(), updatedAt: now })
  }

  /** Enabled again with a clean failure count; the next run is the first occurrence after `now`. */
  resume(cron: ScheduleCron, now: DateTime.Utc, runAs: Actor): Schedule {
    const enabled = new Schedule({ ...this, enabled: true, pausedReason: Option.none(), consecutiveFailures: 0, createdBy: runAs, updatedAt: now })
    return new Schedule({ ...enabled, nextRunAt: enabled.nextAfter(cron, now) })
  }

  /** A run submitted `taskId` for the occurrence `at`. */
  fired(at: DateTime.Utc, taskId: TaskId, now: DateTime.Utc): Schedule {
    return new Schedule({
      ...this,
      runCount: this.runCount + 1,
      lastRun: Option.some({ at, taskId: Option.some(taskId), status: "started" }),
      updatedAt: now
    })
  }

  /** A run was skipped; refusals (not overlaps or missed occurrences) count as failures. */
  skipped(at: DateTime.Utc, reason: SkipReason, now: DateTime.Utc): Schedule {
    const refused = reason !== "overlap" && reason !== "missed"
    return new Schedule({
      ...this,
      consecutiveFailures: refused ? this.consecutiveFailures + 1 : this.consecutiveFailures,
      lastRun: refused ? Option.some({ at, taskId: Option.none(), status: "skipped" }) : this.lastRun,
      updatedAt: now
    })
  }

  /** The task of the last run finished; a success clears the failure count, a failure adds to it. */
  taskFinished(taskId: TaskId, status: "succeeded" | "failed", now: DateTime.Utc): Schedule {
    const last = Option.filter(this.lastRun, (run) => Option.getOrUndefined(run.taskId) === taskId)
    return new Schedule({
      ...this,
      consecutiveFailures: status === "succeeded" ? 0 : this.consecutiveFailures + 1,
      lastRun: Option.isSome(last) ? Option.some({ ...last.value, status }) : this.lastRun,
      updatedAt: now
    })
  }

  /** Moves `nextRunAt` to the first occurrence after `after` (none once ended or paused). */
  advance(cron: ScheduleCron, after: DateTime.Utc, now: DateTime.Utc): Schedule {
    return new Schedule({ ...this, nextRunAt: this.nextAfter(cron, after), updatedAt: now })
  }
}

/** Whether the run is triggered by the cron or by a person (`run-now`). */
export const RunTrigger = Schema.Literals(["schedule", "manual"])
export type RunTrigger = typeof RunTrigger.Type

/** One occurrence of a schedule: unique per (schedule, instant); pending until a worker fires it, then its outcome. */
export class ScheduleRun extends Schema.Class<ScheduleRun>("@atrium/domain/ScheduleRun")({
  scheduleId: ScheduleId,
  workspaceId: WorkspaceId,
  /** The occurrence, in UTC; with the schedule id it is the run's identity and its idempotency key. */
  scheduledFor: Schema.DateTimeUtc,
  trigger: RunTrigger,
  status: RunStatus,
  taskId: Schema.OptionFromNullOr(TaskId),
  reason: Schema.OptionFromNullOr(SkipReason),
  /** Worker claims so far. */
  attempts: Schema.Int,
  /** When a worker may claim it: the occurrence, or the end of the current lease; none once fired. */
  dueAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc,
  firedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** A fresh pending occurrence. */
  static pending(schedule: Schedule, at: DateTime.Utc, trigger: RunTrigger, now: DateTime.Utc): ScheduleRun {
    return new ScheduleRun({
      scheduleId: schedule.id,
      workspaceId: schedule.workspaceId,
      scheduledFor: at,
      trigger,
      status: "pending",
      taskId: Option.none(),
      reason: Option.none(),
      attempts: 0,
      dueAt: Option.some(at),
      createdAt: now,
      firedAt: Option.none()
    })
  }

  /** The AI task path's idempotency key: one task per occurrence, however many processes fire it. */
  get idempotencyKey(): string {
    return `schedule:${this.scheduleId}:${DateTime.formatIso(this.scheduledFor)}`
  }

  /** Fired: its task was submitted. */
  started(taskId: TaskId, now: DateTime.Utc): ScheduleRun {
    return new ScheduleRun({ ...this, status: "started", taskId: Option.some(taskId), dueAt: Option.none(), firedAt: Option.some(now) })
  }

  /** Fired without a task. */
  skip(reason: SkipReason, now: DateTime.Utc): ScheduleRun {
    return new ScheduleRun({ ...this, status: "skipped", reason: Option.some(reason), dueAt: Option.none(), firedAt: Option.some(now) })
  }

  /** Its task finished. */
  finished(status: "succeeded" | "failed"): ScheduleRun {
    return new ScheduleRun({ ...this, status })
  }
}
