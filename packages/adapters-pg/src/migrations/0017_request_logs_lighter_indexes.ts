import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Less per request-log line: no primary key (nothing reads by id), a hash for the random request id, ascending time indexes. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE request_logs DROP CONSTRAINT request_logs_pkey`
  yield* sql`DROP INDEX request_logs_request_id_idx`
  yield* sql`CREATE INDEX request_logs_request_id_idx ON request_logs USING hash (request_id)`
  yield* sql`DROP INDEX request_logs_workspace_idx`
  yield* sql`CREATE INDEX request_logs_workspace_idx ON request_logs (workspace_id, created_at, id)`
  yield* sql`DROP INDEX request_logs_key_idx`
  yield* sql`CREATE INDEX request_logs_key_idx ON request_logs (workspace_id, key_id, created_at, id)`
})
