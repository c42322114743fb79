import {
  Actor,
  AiTaskRequest,
  CatchUp,
  Overlap,
  PausedReason,
  RunStatus,
  RunTrigger,
  Schedule,
  ScheduleId,
  ScheduleRepository,
  ScheduleRun,
  SkipReason,
  TaskId,
  WorkspaceId
} from "@atrium/domain"
import type { PageRequest } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeCursor } from "@atrium/domain"
import { afterCursor, fetchSize, toPage, toPageBy } from "../shared/keyset-page.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { dateOrNull } from "../shared/sql-values.ts"

const Time = Schema.DateTimeUtcFromDate
const OptionalTime = Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)

/** The `schedules` row as the driver returns it (`jsonb` parsed, `timestamptz` as `Date`). */
const ScheduleRow = Schema.Struct({
  id: ScheduleId,
  workspace_id: WorkspaceId,
  name: Schema.String,
  cron: Schema.String,
  timezone: Schema.String,
  task: AiTaskRequest,
  enabled: Schema.Boolean,
  created_by: Actor,
  catch_up: CatchUp,
  overlap: Overlap,
  starts_at: OptionalTime,
  ends_at: OptionalTime,
  max_runs: Schema.OptionFromNullOr(Schema.Int),
  run_count: Schema.Int,
  consecutive_failures: Schema.Int,
  next_run_at: OptionalTime,
  last_run_at: OptionalTime,
  last_run_task_id: Schema.OptionFromNullOr(TaskId),
  last_run_status: Schema.OptionFromNullOr(RunStatus),
  paused_reason: Schema.OptionFromNullOr(PausedReason),
  created_at: Time,
  updated_at: Time
})

/** The `schedule_runs` row. */
const RunRow = Schema.Struct({
  schedule_id: ScheduleId,
  workspace_id: WorkspaceId,
  scheduled_for: Time,
  trigger: RunTrigger,
  status: RunStatus,
  task_id: Schema.OptionFromNullOr(TaskId),
  reason: Schema.OptionFromNullOr(SkipReason),
  attempts: Schema.Int,
  due_at: OptionalTime,
  created_at: Time,
  fired_at: OptionalTime
})

const decodeSchedules = Schema.decodeUnknownEffect(Schema.Array(ScheduleRow))
const decodeRuns = Schema.decodeUnknownEffect(Schema.Array(RunRow))
const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))

const toSchedule = (row: typeof ScheduleRow.Type): Schedule =>
  new Schedule({
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    task: row.task,
    enabled: row.enabled,
    createdBy: row.created_by,
    catchUp: row.catch_up,
    overlap: row.overlap,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    maxRuns: row.max_runs,
    runCount: row.run_count,
    consecutiveFailures: row.consecutive_failures,
    nextRunAt: row.next_run_at,
    lastRun: Option.map(Option.all([row.last_run_at, row.last_run_status]), ([at, status]) => ({ at, taskId: row.last_run_task_id, status })),
    pausedReason: row.paused_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at
  })

const toRun = (row: typeof RunRow.Type): ScheduleRun =>
  new ScheduleRun({
    scheduleId: row.schedule_id,
    workspaceId: row.workspace_id,
    scheduledFor: row.scheduled_for,
    trigger: row.trigger,
    status: row.status,
    taskId: row.task_id,
    reason: row.reason,
    attempts: row.attempts,
    dueAt: row.due_at,
    createdAt: row.created_at,
    firedAt: row.fired_at
  })

const scheduleColumns =
  "id, workspace_id, name, cron, timezone, task, enabled, created_by, catch_up, overlap, starts_at, ends_at, max_runs, run_count, " +
  "consecutive_failures, next_run_at, last_run_at, last_run_task_id, last_run_status, paused_reason, created_at, updated_at"
const runColumns = "schedule_id, workspace_id, scheduled_for, trigger, status, task_id, reason, attempts, due_at, created_at, fired_at"
const leasedRunColumns = runColumns.split(", ").map((column) => `r.${column}`).join(", ")

/** Postgres schedules and runs: the occurrence rows are the queue every process's schedule worker claims from. */
export const ScheduleRepositoryPg = Layer.effect(
  ScheduleRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const schedules = (rows: ReadonlyArray<unknown>) => decodeSchedules(rows).pipe(Effect.map((decoded) => decoded.map(toSchedule)))
    const runs = (rows: ReadonlyArray<unknown>) => decodeRuns(rows).pipe(Effect.map((decoded) => decoded.map(toRun)))

    const insert = Effect.fn("ScheduleRepository.insert")(function*(s: Schedule) {
      const last = Option.getOrUndefined(s.lastRun)
      yield* sql`
        INSERT INTO schedules (${sql.literal(scheduleColumns)})
        VALUES (
          ${s.id}, ${s.workspaceId}, ${s.name}, ${s.cron}, ${s.timezone}, ${JSON.stringify(s.task)}::jsonb, ${s.enabled},
          ${JSON.stringify(s.createdBy)}::jsonb, ${s.catchUp}, ${s.overlap}, ${dateOrNull(s.startsAt)}, ${dateOrNull(s.endsAt)},
          ${Option.getOrNull(s.maxRuns)}, ${s.runCount}, ${s.consecutiveFailures}, ${dateOrNull(s.nextRunAt)},
          ${last === undefined ? null : DateTime.toDateUtc(last.at)}, ${last === undefined ? null : Option.getOrNull(last.taskId)},
          ${last?.status ?? null}, ${Option.getOrNull(s.pausedReason)}, ${DateTime.toDateUtc(s.createdAt)}, ${DateTime.toDateUtc(s.updatedAt)}
        )
      `.pipe(orUnavailable)
    })

    const update = Effect.fn("ScheduleRepository.update")(function*(s: Schedule) {
      const last = Option.getOrUndefined(s.lastRun)
      yield* sql`
        UPDATE schedules SET
          name = ${s.name}, cron = ${s.cron}, timezone = ${s.timezone}, task = ${JSON.stringify(s.task)}::jsonb, enabled = ${s.enabled},
          created_by = ${JSON.stringify(s.createdBy)}::jsonb, catch_up = ${s.catchUp}, overlap = ${s.overlap},
          starts_at = ${dateOrNull(s.startsAt)}, ends_at = ${dateOrNull(s.endsAt)}, max_runs = ${Option.getOrNull(s.maxRuns)},
          run_count = ${s.runCount}, consecutive_failures = ${s.consecutiveFailures}, next_run_at = ${dateOrNull(s.nextRunAt)},
          last_run_at = ${last === undefined ? null : DateTime.toDateUtc(last.at)},
          last_run_task_id = ${last === undefined ? null : Option.getOrNull(last.taskId)},
          last_run_status = ${last?.status ?? null}, paused_reason = ${Option.getOrNull(s.pausedReason)},
          updated_at = ${DateTime.toDateUtc(s.updatedAt)}
        WHERE id = ${s.id} AND workspace_id = ${s.workspaceId}
      `.pipe(orUnavailable)
    })

    const find = Effect.fn("ScheduleRepository.find")(function*(workspaceId: WorkspaceId, id: ScheduleId) {
      const found = yield* sql`SELECT ${sql.literal(scheduleColumns)} FROM schedules WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
        Effect.flatMap(schedules),
        orUnavailable
      )
      return Option.fromNullishOr(found[0])
    })

    const lock = Effect.fn("ScheduleRepository.lock")(function*(workspaceId: WorkspaceId, id: ScheduleId) {
      const found = yield* sql`
        SELECT ${sql.literal(scheduleColumns)} FROM schedules WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE
      `.pipe(Effect.flatMap(schedules), orUnavailable)
      return Option.fromNullishOr(found[0])
    })

    const remove = Effect.fn("ScheduleRepository.delete")(function*(workspaceId: WorkspaceId, id: ScheduleId) {
      yield* sql`DELETE FROM schedules WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(orUnavailable)
    })

    const list = Effect.fn("ScheduleRepository.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      const rows = yield* sql`
        SELECT ${sql.literal(scheduleColumns)} FROM schedules
        WHERE workspace_id = ${workspaceId} AND ${afterCursor(sql, page)}
        ORDER BY created_at DESC, id DESC LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(schedules), orUnavailable)
      return toPage(rows, page)
    })

    // The advisory lock (held to the end of the transaction) makes concurrent creations in one workspace take turns.
    const countForCreate = Effect.fn("ScheduleRepository.countForCreate")(function*(workspaceId: WorkspaceId) {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`schedules:${workspaceId}`}))`.pipe(orUnavailable)
      const [row] = yield* sql`SELECT count(*)::int AS count FROM schedules WHERE workspace_id = ${workspaceId}`.pipe(
        Effect.flatMap(decodeCount),
        orUnavailable
      )
      return row.count
    })

    const listEnabledByCreator = Effect.fn("ScheduleRepository.listEnabledByCreator")(function*(workspaceId: WorkspaceId, actor: Actor) {
      return yield* sql`
        SELECT ${sql.literal(scheduleColumns)} FROM schedules
        WHERE workspace_id = ${workspaceId} AND enabled AND created_by ->> 'id' = ${actor.id} AND created_by ->> 'type' = ${actor.type}
        ORDER BY created_at, id
      `.pipe(Effect.flatMap(schedules), orUnavailable)
    })

    const insertRun = Effect.fn("ScheduleRepository.insertRun")(function*(run: ScheduleRun) {
      const stored = yield* sql`
        INSERT INTO schedule_runs (${sql.literal(runColumns)})
        VALUES (
          ${run.scheduleId}, ${run.workspaceId}, ${DateTime.toDateUtc(run.scheduledFor)}, ${run.trigger}, ${run.status},
          ${Option.getOrNull(run.taskId)}, ${Option.getOrNull(run.reason)}, ${run.attempts}, ${dateOrNull(run.dueAt)},
          ${DateTime.toDateUtc(run.createdAt)}, ${dateOrNull(run.firedAt)}
        )
        ON CONFLICT (schedule_id, scheduled_for) DO NOTHING
        RETURNING schedule_id
      `.pipe(orUnavailable)
      return stored.length > 0
    })

    const lockRun = Effect.fn("ScheduleRepository.lockRun")(function*(scheduleId: ScheduleId, at: DateTime.Utc) {
      const found = yield* sql`
        SELECT ${sql.literal(runColumns)} FROM schedule_runs WHERE schedule_id = ${scheduleId} AND scheduled_for = ${DateTime.toDateUtc(at)} FOR UPDATE
      `.pipe(Effect.flatMap(runs), orUnavailable)
      return Option.fromNullishOr(found[0])
    })

    const lockRunByTask = Effect.fn("ScheduleRepository.lockRunByTask")(function*(workspaceId: WorkspaceId, taskId: TaskId) {
      const found = yield* sql`
        SELECT ${sql.literal(runColumns)} FROM schedule_runs WHERE workspace_id = ${workspaceId} AND task_id = ${taskId} FOR UPDATE
      `.pipe(Effect.flatMap(runs), orUnavailable)
      return Option.fromNullishOr(found[0])
    })

    const updateRun = Effect.fn("ScheduleRepository.updateRun")(function*(run: ScheduleRun) {
      yield* sql`
        UPDATE schedule_runs SET
          status = ${run.status}, task_id = ${Option.getOrNull(run.taskId)}, reason = ${Option.getOrNull(run.reason)},
          attempts = ${run.attempts}, due_at = ${dateOrNull(run.dueAt)}, fired_at = ${dateOrNull(run.firedAt)}
        WHERE schedule_id = ${run.scheduleId} AND scheduled_for = ${DateTime.toDateUtc(run.scheduledFor)}
      `.pipe(orUnavailable)
    })

    const deleteRun = Effect.fn("ScheduleRepository.deleteRun")(function*(scheduleId: ScheduleId, at: DateTime.Utc) {
      yield* sql`DELETE FROM schedule_runs WHERE schedule_id = ${scheduleId} AND scheduled_for = ${DateTime.toDateUtc(at)}`.pipe(orUnavailable)
    })

    const deletePendingRuns = Effect.fn("ScheduleRepository.deletePendingRuns")(function*(scheduleId: ScheduleId) {
      yield* sql`DELETE FROM schedule_runs WHERE schedule_id = ${scheduleId} AND status = 'pending'`.pipe(orUnavailable)
    })

    // Newest occurrence first; the cursor is the shared (time, id) format over (scheduled_for, schedule_id), and the
    // occurrence alone orders a schedule's runs (it is unique per schedule).
    const listRuns = Effect.fn("ScheduleRepository.listRuns")(function*(workspaceId: WorkspaceId, scheduleId: ScheduleId, page: PageRequest) {
      const position = Option.match(decodeCursor(page.cursor), {
        onNone: () => sql`TRUE`,
        onSome: (cursor) => sql`scheduled_for < ${DateTime.toDateUtc(cursor.createdAt)}`
      })
      const rows = yield* sql`
        SELECT ${sql.literal(runColumns)} FROM schedule_runs
        WHERE workspace_id = ${workspaceId} AND schedule_id = ${scheduleId} AND status <> 'pending' AND ${position}
        ORDER BY scheduled_for DESC LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(runs), orUnavailable)
      return toPageBy(rows, page, (run) => ({ createdAt: run.scheduledFor, id: run.scheduleId }))
    })

    const claimDueRuns = Effect.fn("ScheduleRepository.claimDueRuns")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      return yield* sql`
        WITH due AS MATERIALIZED (
          SELECT schedule_id, scheduled_for, due_at FROM schedule_runs
          WHERE status = 'pending' AND due_at <= ${DateTime.toDateUtc(now)}
          ORDER BY due_at, schedule_id
          LIMIT ${size}
          FOR UPDATE SKIP LOCKED
        ), leased AS (
          UPDATE schedule_runs r SET attempts = r.attempts + 1, due_at = ${DateTime.toDateUtc(leaseUntil)}
          FROM due WHERE r.schedule_id = due.schedule_id AND r.scheduled_for = due.scheduled_for
          RETURNING ${sql.literal(leasedRunColumns)}, due.due_at AS claimed_due_at
        )
        SELECT ${sql.literal(runColumns)} FROM leased ORDER BY claimed_due_at, schedule_id
      `.pipe(Effect.flatMap(runs), orUnavailable)
    })

    return ScheduleRepository.of({
      insert,
      find,
      lock,
      update,
      delete: remove,
      list,
      countForCreate,
      listEnabledByCreator,
      insertRun,
      lockRun,
      lockRunByTask,
      updateRun,
      deleteRun,
      deletePendingRuns,
      listRuns,
      claimDueRuns
    })
  })
)

