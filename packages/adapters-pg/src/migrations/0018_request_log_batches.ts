import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Request logs as one row per key and flush, its lines in array columns: the indexes are paid per batch, not per line
 * (per line they were most of the v1 read's request-log cost). Lines already written move into batches of up to
 * 10,000 consecutive lines of a key, so nothing is lost at the upgrade.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A line's id is its flush's number (`flush`, shared by the batches one insert writes) times 100,000 plus its place in
  // that flush (`place`, from 1; no insert carries 100,000 lines): within a millisecond, the later line has the larger id.
  // `statuses` holds each status of the batch once, so a status filter skips a batch without reading its lines. A line's
  // method and route are `methods[call]` and `routes[call]`: a batch names each of its (few) endpoints once.
  yield* sql`CREATE SEQUENCE request_log_flushes`
  yield* sql`
    CREATE TABLE request_log_batches (
      id bigint GENERATED ALWAYS AS IDENTITY,
      flush bigint NOT NULL,
      workspace_id text NOT NULL,
      key_id text NOT NULL,
      first_at timestamptz NOT NULL,
      last_at timestamptz NOT NULL,
      statuses smallint[] NOT NULL,
      methods text[] NOT NULL,
      routes text[] NOT NULL,
      at timestamptz[] NOT NULL,
      call smallint[] NOT NULL,
      status smallint[] NOT NULL,
      duration_ms double precision[] NOT NULL,
      request_id text[] NOT NULL,
      place integer[] NOT NULL
    )
  `
  // A second of a busy key is a few hundred kB of arrays: compressing them cost more CPU than the lines' indexes did.
  for (const column of ["at", "call", "status", "duration_ms", "request_id", "place"]) {
    yield* sql`ALTER TABLE request_log_batches ALTER COLUMN ${sql(column)} SET STORAGE EXTERNAL`
  }
  yield* sql`CREATE INDEX request_log_batches_workspace_idx ON request_log_batches (workspace_id, last_at, id)`
  yield* sql`CREATE INDEX request_log_batches_key_idx ON request_log_batches (workspace_id, key_id, last_at, id)`
  // Batches arrive in time order, so a block-range index serves the pruning at a fraction of a b-tree's cost.
  yield* sql`CREATE INDEX request_log_batches_last_at_idx ON request_log_batches USING brin (last_at)`
  // Request ids the server did not make (a client's `x-request-id`) carry no time to bound their lookup: their batch is
  // found through here. The server's own ids (`req_` and the time) are looked up among the batches of their minute.
  yield* sql`
    CREATE TABLE request_log_foreign_ids (
      batch_id bigint NOT NULL,
      request_id text NOT NULL
    )
  `
  yield* sql`CREATE INDEX request_log_foreign_ids_request_id_idx ON request_log_foreign_ids USING hash (request_id)`
  yield* sql`CREATE INDEX request_log_foreign_ids_batch_idx ON request_log_foreign_ids USING brin (batch_id)`

  yield* sql`
    WITH numbered AS (
      SELECT *, (row_number() OVER (PARTITION BY workspace_id, key_id ORDER BY created_at, id) - 1) / 10000 AS chunk,
        ((row_number() OVER (PARTITION BY workspace_id, key_id ORDER BY created_at, id) - 1) % 10000 + 1)::integer AS place
      FROM request_logs
    ), calls AS (
      SELECT workspace_id, key_id, chunk, method, route,
        row_number() OVER (PARTITION BY workspace_id, key_id, chunk ORDER BY method, route)::smallint AS call
      FROM (SELECT DISTINCT workspace_id, key_id, chunk, method, route FROM numbered) AS distinct_calls
    )
    INSERT INTO request_log_batches (flush, workspace_id, key_id, first_at, last_at, statuses, methods, routes, at, call, status, duration_ms, request_id, place)
    SELECT nextval('request_log_flushes'), n.workspace_id, n.key_id, min(n.created_at), max(n.created_at), array_agg(DISTINCT n.status),
      (SELECT array_agg(c.method ORDER BY c.call) FROM calls AS c WHERE (c.workspace_id, c.key_id, c.chunk) = (n.workspace_id, n.key_id, n.chunk)),
      (SELECT array_agg(c.route ORDER BY c.call) FROM calls AS c WHERE (c.workspace_id, c.key_id, c.chunk) = (n.workspace_id, n.key_id, n.chunk)),
      array_agg(n.created_at ORDER BY n.created_at, n.id), array_agg(c.call ORDER BY n.created_at, n.id),
      array_agg(n.status ORDER BY n.created_at, n.id), array_agg(n.duration_ms ORDER BY n.created_at, n.id),
      array_agg(n.request_id ORDER BY n.created_at, n.id), array_agg(n.place ORDER BY n.created_at, n.id)
    FROM numbered AS n JOIN calls AS c USING (workspace_id, key_id, chunk, method, route)
    GROUP BY n.workspace_id, n.key_id, n.chunk
    ORDER BY min(n.created_at)
  `
  // Every moved line's id is looked up here: which of them the server made is the repository's to say, not SQL's.
  yield* sql`
    INSERT INTO request_log_foreign_ids (batch_id, request_id)
    SELECT id, unnest(request_id) FROM request_log_batches
  `
  yield* sql`DROP TABLE request_logs`
})
