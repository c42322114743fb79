import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Schedules, their runs (one row per occurrence, unique per schedule and instant), and the schedule of a task. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // No foreign key: a task outlives the schedule that submitted it.
  yield* sql`ALTER TABLE ai_tasks ADD COLUMN schedule_id text`
  yield* sql`
    CREATE TABLE schedules (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      name text NOT NULL,
      cron text NOT NULL,
      timezone text NOT NULL,
      task jsonb NOT NULL,
      enabled boolean NOT NULL,
      created_by jsonb NOT NULL,
      catch_up text NOT NULL CHECK (catch_up IN ('none', 'latest')),
      overlap text NOT NULL CHECK (overlap IN ('skip', 'queue')),
      starts_at timestamptz,
      ends_at timestamptz,
      max_runs integer CHECK (max_runs >= 1),
      run_count integer NOT NULL CHECK (run_count >= 0),
      consecutive_failures integer NOT NULL CHECK (consecutive_failures >= 0),
      next_run_at timestamptz,
      last_run_at timestamptz,
      last_run_task_id text,
      last_run_status text CHECK (last_run_status IN ('pending', 'started', 'succeeded', 'failed', 'skipped')),
      paused_reason text CHECK (paused_reason IN ('manual', 'failing', 'not_entitled', 'insufficient_credits', 'creator_removed')),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT schedules_paused_has_reason CHECK (enabled = (paused_reason IS NULL))
    )
  `
  yield* sql`CREATE INDEX schedules_workspace_created_idx ON schedules (workspace_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX schedules_creator_idx ON schedules (workspace_id, (created_by ->> 'id')) WHERE enabled`
  // The primary key is the exactly-once guarantee: one run per (schedule, instant), whoever inserts it first.
  yield* sql`
    CREATE TABLE schedule_runs (
      schedule_id text NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
      workspace_id text NOT NULL,
      scheduled_for timestamptz NOT NULL,
      trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
      status text NOT NULL CHECK (status IN ('pending', 'started', 'succeeded', 'failed', 'skipped')),
      task_id text,
      reason text CHECK (reason IN ('overlap', 'not_entitled', 'usage_cap_reached', 'insufficient_credits', 'invalid_task')),
      attempts integer NOT NULL CHECK (attempts >= 0),
      due_at timestamptz,
      created_at timestamptz NOT NULL,
      fired_at timestamptz,
      PRIMARY KEY (schedule_id, scheduled_for)
    )
  `
  // The queue: only pending rows are indexed.
  yield* sql`CREATE INDEX schedule_runs_due_idx ON schedule_runs (due_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX schedule_runs_task_idx ON schedule_runs (workspace_id, task_id) WHERE task_id IS NOT NULL`
})
