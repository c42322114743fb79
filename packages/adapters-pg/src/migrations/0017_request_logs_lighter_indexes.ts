import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Request logs written for less: every line pays for each index it enters, and two of them served no query. The
 * primary key only re-proved what the identity column already guarantees (its values are the sequence's, never given
 * by a statement), and nothing looks a line up by id alone. The request-id lookup keeps its index as a hash of the
 * request id: a line's random id landed on a random page of a b-tree twice its size; a hash entry is a 4-byte code,
 * and the lookup (the lines of that request id, then this workspace's) stays a point lookup.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE request_logs DROP CONSTRAINT request_logs_pkey`
  yield* sql`DROP INDEX request_logs_request_id_idx`
  yield* sql`CREATE INDEX request_logs_request_id_idx ON request_logs USING hash (request_id)`
})
