import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Request logs written for less: every line pays for each index it enters. The primary key only re-proved what the
 * identity column already guarantees (its values are the sequence's, never a statement's), and nothing reads a line by
 * id alone. The request-id lookup becomes a hash of the request id: a random id landed on a random leaf of a b-tree
 * twice the size, where a hash entry is a 4-byte code and the lookup (that id's lines, then this workspace's) stays a
 * point lookup. The time-ordered indexes run ascending, read backwards for newest first: a new line then goes to the
 * end of its workspace's (or key's) range, where a b-tree appends, instead of to its start.
 */
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
