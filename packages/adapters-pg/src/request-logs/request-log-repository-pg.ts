import { decodeCursor, type PageRequest, RequestLogEntry, type RequestLogFilter, type RequestLogRecord, RequestLogRepository, type WorkspaceId } from "@atrium/domain"
import { type Array as Arr, DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { fetchSize, toPage } from "../shared/keyset-page.ts"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { type BatchRow, toBatches } from "./request-log-batches.ts"
import { foreignIdWindow } from "./request-log-id-window.ts"

/** A line unnested from its batch, as the driver returns it (its bigint id as text). */
const LineRow = Schema.Struct({
  ...RequestLogEntry.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())
/** Each batch a page read, with its line when one matched (a batch with none still marks how far the read got). */
const BatchEdge = Schema.Struct({ batchId: Schema.String, batchLastAt: Schema.DateTimeUtcFromDate, id: Schema.NullOr(Schema.String) }).pipe(snakeCaseColumns())
const decodeEdges = Schema.decodeUnknownEffect(Schema.Array(BatchEdge))
const decodeLines = Schema.decodeUnknownEffect(Schema.Array(LineRow))

// A line's id is a bigint: another list's cursor (an id like `fr_…`) reads as no cursor, as garbage does, not as a failed cast.
const lineId = /^\d{1,18}$/
// Batches a page reads first, then four times as many each further round while its lines are not yet certain.
const firstRound = 8
const largestRound = 2048
// Lines one insert carries: at most as many batches, 15 parameters each, within the protocol's 65,535.
const linesPerStatement = 4000

// Newest first, then by id as the bigint it is (digits without leading zeros: the longer, the larger).
const newestFirst = (a: RequestLogEntry, b: RequestLogEntry) =>
  DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || b.id.length - a.id.length || (b.id > a.id ? 1 : b.id < a.id ? -1 : 0)

/**
 * Postgres request logs: one row per key and flush with its lines in arrays (`request_log_batches`), so the indexes
 * cost a batch, not a line. A page reads batches newest first (by their last line) until its lines are certain: every
 * batch left unread ends before them.
 */
export const RequestLogRepositoryPg = Layer.effect(
  RequestLogRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (rows: ReadonlyArray<BatchRow>) =>
      sql`
        WITH flush AS MATERIALIZED (
          SELECT nextval('request_log_flushes') AS flush
        ), input AS MATERIALIZED (
          SELECT nextval(pg_get_serial_sequence('request_log_batches', 'id')) AS id, flush.flush, v.*
          FROM flush, (VALUES ${sql.csv(rows.map((row) => sql`(
            ${row.workspaceId}::text, ${row.keyId}::text, ${row.firstAt}::timestamptz, ${row.lastAt}::timestamptz,
            ${row.statuses}::smallint[], ${row.methods}::text[], ${row.routes}::text[], ${row.at}::timestamptz[], ${row.call}::smallint[],
            ${row.status}::smallint[], ${row.durationMs}::double precision[], ${row.requestId}::text[], ${row.place}::integer[],
            ${row.foreignIds}::text[]
          )`))}) AS v(workspace_id, key_id, first_at, last_at, statuses, methods, routes, at, call, status, duration_ms, request_id, place, foreign_ids)
        ), batches AS (
          INSERT INTO request_log_batches (id, flush, workspace_id, key_id, first_at, last_at, statuses, methods, routes, at, call, status, duration_ms, request_id, place)
          OVERRIDING SYSTEM VALUE
          SELECT id, flush, workspace_id, key_id, first_at, last_at, statuses, methods, routes, at, call, status, duration_ms, request_id, place FROM input
        )
        INSERT INTO request_log_foreign_ids (batch_id, request_id)
        SELECT id, unnest(foreign_ids) FROM input
      `

    const appendAll = Effect.fn("RequestLogRepository.appendAll")(function*(records: Arr.NonEmptyReadonlyArray<RequestLogRecord>) {
      const flushes = yield* Effect.forEach(
        Array.from({ length: Math.ceil(records.length / linesPerStatement) }, (_, i) => records.slice(i * linesPerStatement, (i + 1) * linesPerStatement)),
        (part) => Effect.orDie(Effect.fromResult(toBatches(part)))
      )
      const [only] = flushes
      if (flushes.length === 1 && only !== undefined) return yield* insert(only).pipe(orUnavailable)
      // All or nothing, so a retry after an outage does not write a part twice.
      yield* sql.withTransaction(Effect.forEach(flushes, insert, { discard: true })).pipe(orUnavailable)
    })

    const list = Effect.fn("RequestLogRepository.list")(function*(workspaceId: WorkspaceId, filter: RequestLogFilter, page: PageRequest, since: DateTime.Utc) {
      const fetch = fetchSize(page)
      const sinceDate = DateTime.toDateUtc(since)
      const cursor = Option.getOrUndefined(Option.filter(decodeCursor(page.cursor), (position) => lineId.test(position.id)))
      const cursorAt = cursor === undefined ? undefined : DateTime.toDateUtc(cursor.createdAt)
      const requestId = filter.requestId
      const batchConditions = [
        sql`workspace_id = ${workspaceId}`,
        sql`last_at >= ${sinceDate}`,
        ...(filter.keyId === undefined ? [] : [sql`key_id = ${filter.keyId}`]),
        ...(filter.status === undefined ? [] : [sql`${filter.status}::smallint = ANY(statuses)`]),
        ...(cursorAt === undefined ? [] : [sql`first_at <= ${cursorAt}`]),
        ...(requestId === undefined ? [] : [Option.match(foreignIdWindow(requestId), {
          // Not the server's: only the batches that recorded it as a client's id.
          onNone: () => sql`id IN (SELECT batch_id FROM request_log_foreign_ids WHERE request_id = ${requestId})`,
          onSome: (window) => sql`((last_at >= ${window.from} AND first_at <= ${window.to}) OR id IN (SELECT batch_id FROM request_log_foreign_ids WHERE request_id = ${requestId}))`
        })])
      ]
      const lineConditions = [
        sql`l.created_at >= ${sinceDate}`,
        ...(filter.status === undefined ? [] : [sql`l.status = ${filter.status}`]),
        ...(requestId === undefined ? [] : [sql`l.request_id = ${requestId}`]),
        ...(cursor === undefined || cursorAt === undefined ? [] : [sql`(l.created_at, b.flush * 100000 + l.place) < (${cursorAt}, ${cursor.id}::bigint)`])
      ]
      const round = (batches: number, after: { readonly lastAt: Date; readonly id: string } | undefined) =>
        sql`
          WITH b AS (
            SELECT id, flush, workspace_id, key_id, last_at, methods, routes, at, call, status, duration_ms, request_id, place
            FROM request_log_batches
            WHERE ${sql.and([...batchConditions, ...(after === undefined ? [] : [sql`(last_at, id) < (${after.lastAt}, ${after.id}::bigint)`])])}
            ORDER BY last_at DESC, id DESC
            LIMIT ${batches}
          )
          SELECT b.id::text AS batch_id, b.last_at AS batch_last_at, b.workspace_id, b.key_id, l.id, l.method, l.route, l.status,
            l.duration_ms, l.request_id, l.created_at
          FROM b LEFT JOIN LATERAL (
            SELECT (b.flush * 100000 + l.place)::text AS id, b.methods[l.call] AS method, b.routes[l.call] AS route, l.*
            FROM unnest(b.at, b.call, b.status, b.duration_ms, b.request_id, b.place)
              AS l(created_at, call, status, duration_ms, request_id, place)
            WHERE ${sql.and(lineConditions)}
            ORDER BY l.created_at DESC, l.place DESC
            LIMIT ${fetch}
          ) AS l ON TRUE
          ORDER BY b.last_at DESC, b.id DESC
        `
      const lines: Array<RequestLogEntry> = []
      let batches = firstRound
      let after: { readonly lastAt: Date; readonly id: string } | undefined
      for (;;) {
        const raw = yield* round(batches, after)
        const edges = yield* decodeEdges(raw)
        const found = yield* decodeLines(raw.filter((_, i) => edges[i]?.id !== null))
        lines.push(...found.map((row) => new RequestLogEntry(row)))
        const last = edges.at(-1)
        const read = new Set(edges.map((edge) => edge.batchId)).size
        if (last === undefined || read < batches) break
        // Batches left unread end at or before this batch's last line: lines after it are certain.
        const edge = DateTime.toEpochMillis(last.batchLastAt)
        if (lines.filter((line) => DateTime.toEpochMillis(line.createdAt) > edge).length >= fetch) {
          lines.splice(0, lines.length, ...lines.filter((line) => DateTime.toEpochMillis(line.createdAt) > edge))
          break
        }
        after = { lastAt: DateTime.toDateUtc(last.batchLastAt), id: last.batchId }
        batches = Math.min(batches * 4, largestRound)
      }
      return toPage(lines.sort(newestFirst).slice(0, fetch), page)
    }, orUnavailable)

    const pruneBefore = Effect.fn("RequestLogRepository.pruneBefore")(function*(cutoff: DateTime.Utc) {
      // Whole batches go once their last line is past the retention; `list` skips the older lines of a batch it keeps.
      const gone = yield* sql<{ readonly gone: number }>`
        WITH gone AS (
          DELETE FROM request_log_batches WHERE last_at < ${DateTime.toDateUtc(cutoff)} RETURNING id, cardinality(status) AS lines
        ), ids AS (
          DELETE FROM request_log_foreign_ids WHERE batch_id IN (SELECT id FROM gone)
        )
        SELECT coalesce(sum(lines), 0)::int AS gone FROM gone
      `.pipe(orUnavailable)
      return gone[0]?.gone ?? 0
    })

    return RequestLogRepository.of({ appendAll, list, pruneBefore })
  })
)
