import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Webhook endpoints with their sealed secrets, and the delivery queue with its attempt log. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      url text NOT NULL,
      description text NOT NULL,
      event_types text[],
      enabled boolean NOT NULL,
      disabled_reason text,
      failing_since timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )
  `
  yield* sql`CREATE INDEX webhook_endpoints_workspace_created_idx ON webhook_endpoints (workspace_id, created_at DESC, id DESC)`
  // Secrets arrive sealed by the domain; the plaintext never reaches the database. The identity column breaks
  // ties between secrets created in the same instant (a rotation under a frozen clock), newest insert first.
  yield* sql`
    CREATE TABLE webhook_endpoint_secrets (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      sealed text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz
    )
  `
  yield* sql`CREATE INDEX webhook_endpoint_secrets_endpoint_idx ON webhook_endpoint_secrets (endpoint_id, created_at DESC, seq DESC)`
  yield* sql`
    CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY,
      workspace_id text NOT NULL,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id text NOT NULL REFERENCES events (id),
      event_type text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempt_count integer NOT NULL,
      next_attempt_at timestamptz,
      last_status_code integer,
      replay_of text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )
  `
  // The queue: only pending rows are indexed, so the claim scans what is due and nothing that is done.
  yield* sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX webhook_deliveries_endpoint_created_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`
  yield* sql`
    CREATE TABLE webhook_attempts (
      id text PRIMARY KEY,
      delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      number integer NOT NULL,
      started_at timestamptz NOT NULL,
      duration_millis integer NOT NULL,
      status_code integer,
      error_kind text,
      response_headers jsonb NOT NULL,
      response_body text NOT NULL,
      remote_address text,
      next_attempt_at timestamptz
    )
  `
  yield* sql`CREATE INDEX webhook_attempts_delivery_number_idx ON webhook_attempts (delivery_id, number)`
})
