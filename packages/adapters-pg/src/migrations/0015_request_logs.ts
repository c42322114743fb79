import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Request logs of `/api/v1`, per workspace and key: written in batches, read newest first, pruned by age. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // No foreign keys: a batch must never wait on, or fail with, a workspace or key changed meanwhile; lines go by age.
  yield* sql`
    CREATE TABLE request_logs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      workspace_id text NOT NULL,
      key_id text NOT NULL,
      method text NOT NULL,
      route text NOT NULL,
      status smallint NOT NULL,
      duration_ms double precision NOT NULL,
      request_id text NOT NULL,
      created_at timestamptz NOT NULL
    )
  `
  yield* sql`CREATE INDEX request_logs_workspace_idx ON request_logs (workspace_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX request_logs_key_idx ON request_logs (workspace_id, key_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX request_logs_request_id_idx ON request_logs (workspace_id, request_id)`
  // Lines arrive in time order, so a block-range index serves the pruning at a fraction of a b-tree's cost.
  yield* sql`CREATE INDEX request_logs_created_at_idx ON request_logs USING brin (created_at)`
})
