import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** AI tasks and their queue, submission idempotency keys, billing accounts, monthly meters and usage records. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Money is bigint micro-USD; the checks mirror the domain schemas (`Micros`, counts), so a bug cannot store what
  // the domain could never decode.
  yield* sql`
    CREATE TABLE ai_tasks (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      model text NOT NULL,
      status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
      input jsonb NOT NULL,
      max_output_tokens integer NOT NULL CHECK (max_output_tokens >= 1),
      metadata jsonb NOT NULL,
      output text,
      input_tokens integer,
      output_tokens integer,
      cost_micros bigint CHECK (cost_micros >= 0),
      reserved_micros bigint NOT NULL CHECK (reserved_micros >= 0),
      error jsonb,
      attempts integer NOT NULL CHECK (attempts >= 0),
      next_attempt_at timestamptz,
      submitted_by jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      started_at timestamptz,
      finished_at timestamptz
    )
  `
  // The queue: only unfinished rows are indexed, so the claim scans what may be due and nothing that is done.
  yield* sql`CREATE INDEX ai_tasks_due_idx ON ai_tasks (next_attempt_at) WHERE status IN ('queued', 'running')`
  yield* sql`CREATE INDEX ai_tasks_workspace_created_idx ON ai_tasks (workspace_id, created_at DESC, id DESC)`
  // No foreign key to the task: the key is reserved before the task is inserted, in the same transaction.
  yield* sql`
    CREATE TABLE idempotency_keys (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      key text NOT NULL,
      request_hash text NOT NULL,
      task_id text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, key)
    )
  `
  // Reserved is part of the balance: settling charges at most what a task reserved, so reserved ≤ balance always
  // holds, and the database refuses an overspend even if a bug let one through.
  yield* sql`
    CREATE TABLE billing_accounts (
      workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
      credit_balance_micros bigint NOT NULL CHECK (credit_balance_micros >= 0),
      reserved_micros bigint NOT NULL CHECK (reserved_micros >= 0),
      spend_cap_micros bigint CHECK (spend_cap_micros >= 0),
      task_cap integer CHECK (task_cap >= 0),
      CONSTRAINT billing_accounts_reserved_within_balance CHECK (reserved_micros <= credit_balance_micros)
    )
  `
  yield* sql`
    CREATE TABLE monthly_usage (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
      spent_micros bigint NOT NULL CHECK (spent_micros >= 0),
      reserved_micros bigint NOT NULL CHECK (reserved_micros >= 0),
      task_count integer NOT NULL CHECK (task_count >= 0),
      cap_notices text[] NOT NULL CHECK (cap_notices <@ ARRAY['ai_spend', 'ai_tasks']::text[]),
      PRIMARY KEY (workspace_id, month)
    )
  `
  // No foreign key: billing events outlive what they describe, like the audit trail.
  yield* sql`
    CREATE TABLE usage_records (
      task_id text PRIMARY KEY,
      workspace_id text NOT NULL,
      model text NOT NULL,
      input_tokens integer NOT NULL CHECK (input_tokens >= 0),
      output_tokens integer NOT NULL CHECK (output_tokens >= 0),
      cost_micros bigint NOT NULL CHECK (cost_micros >= 0),
      month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
      created_at timestamptz NOT NULL
    )
  `
  yield* sql`CREATE INDEX usage_records_workspace_created_idx ON usage_records (workspace_id, created_at DESC, task_id DESC)`
})
