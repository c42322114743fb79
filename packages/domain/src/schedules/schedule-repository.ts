import { Context, type DateTime, type Effect, type Option } from "effect"
import type { Actor, Page, PageRequest, ScheduleId, TaskId, Unavailable, WorkspaceId } from "../shared/index.ts"
import type { Schedule, ScheduleRun } from "./schedule.ts"

/**
 * Port: schedules and their runs (occurrences). Lock order, to keep concurrent firings, settlements and edits free of
 * deadlocks: a run row first, then the schedule row (`lock`), always.
 */
export class ScheduleRepository extends Context.Service<ScheduleRepository, {
  readonly insert: (schedule: Schedule) => Effect.Effect<void, Unavailable>
  /** The schedule, only when it belongs to `workspaceId`; a plain read (no lock). */
  readonly find: (workspaceId: WorkspaceId, id: ScheduleId) => Effect.Effect<Option.Option<Schedule>, Unavailable>
  /** The same, locked until the transaction ends (Postgres `FOR UPDATE`): read-modify-write goes through this. */
  readonly lock: (workspaceId: WorkspaceId, id: ScheduleId) => Effect.Effect<Option.Option<Schedule>, Unavailable>
  /** Replaces the stored schedule (same id and workspace). */
  readonly update: (schedule: Schedule) => Effect.Effect<void, Unavailable>
  /** Deletes the schedule and its runs. */
  readonly delete: (workspaceId: WorkspaceId, id: ScheduleId) => Effect.Effect<void, Unavailable>
  /** Newest first. */
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<Schedule>, Unavailable>
  /**
   * How many schedules the workspace holds. Inside a transaction, Postgres serializes it per workspace (an advisory
   * lock), so two concurrent creations cannot both see room for one more.
   */
  readonly countForCreate: (workspaceId: WorkspaceId) => Effect.Effect<number, Unavailable>
  /** The workspace's enabled schedules created by `actor`. */
  readonly listEnabledByCreator: (workspaceId: WorkspaceId, actor: Actor) => Effect.Effect<ReadonlyArray<Schedule>, Unavailable>
  /** Stores a run unless one exists for the same (schedule, instant); true when stored (unique constraint in Postgres). */
  readonly insertRun: (run: ScheduleRun) => Effect.Effect<boolean, Unavailable>
  /** The run of one occurrence, locked until the transaction ends. */
  readonly lockRun: (scheduleId: ScheduleId, scheduledFor: DateTime.Utc) => Effect.Effect<Option.Option<ScheduleRun>, Unavailable>
  /** The run that submitted `taskId`, locked until the transaction ends. */
  readonly lockRunByTask: (workspaceId: WorkspaceId, taskId: TaskId) => Effect.Effect<Option.Option<ScheduleRun>, Unavailable>
  /** Replaces the stored run (same schedule and instant). */
  readonly updateRun: (run: ScheduleRun) => Effect.Effect<void, Unavailable>
  /** Deletes one run. */
  readonly deleteRun: (scheduleId: ScheduleId, scheduledFor: DateTime.Utc) => Effect.Effect<void, Unavailable>
  /** Deletes the schedule's unfired runs (its placeholder for `nextRunAt`). */
  readonly deletePendingRuns: (scheduleId: ScheduleId) => Effect.Effect<void, Unavailable>
  /** Fired runs of a schedule, newest occurrence first. */
  readonly listRuns: (workspaceId: WorkspaceId, scheduleId: ScheduleId, page: PageRequest) => Effect.Effect<Page<ScheduleRun>, Unavailable>
  /**
   * Claims up to `limit` pending runs due at or before `now`, oldest first, leasing them until `leaseUntil`
   * (`dueAt = leaseUntil`, `attempts + 1`). Postgres: `FOR UPDATE SKIP LOCKED` in one statement, so two workers never
   * claim one run while its lease holds.
   */
  readonly claimDueRuns: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<ScheduleRun>, Unavailable>
}>()("@atrium/domain/ScheduleRepository") {}
