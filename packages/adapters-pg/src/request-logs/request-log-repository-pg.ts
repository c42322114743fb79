import { decodeCursor, type PageRequest, RequestLogEntry, type RequestLogFilter, type RequestLogRecord, RequestLogRepository, type WorkspaceId } from "@atrium/domain"
import { type Array as Arr, DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { fetchSize, toPage } from "../shared/keyset-page.ts"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"

/** The `request_logs` row as the driver returns it (the bigint id as text). */
const RequestLogRow = Schema.Struct({
  ...RequestLogEntry.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(RequestLogRow))

/** Postgres request logs: one multi-row insert per batch, keyset pages newest first, pruning by age. */
export const RequestLogRepositoryPg = Layer.effect(
  RequestLogRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const appendAll = Effect.fn("RequestLogRepository.appendAll")(function*(records: Arr.NonEmptyReadonlyArray<RequestLogRecord>) {
      // The batch travels as one JSON array: one statement and one round trip, whatever its size.
      const rows = records.map((record) => ({
        workspace_id: record.workspaceId,
        key_id: record.keyId,
        method: record.method,
        route: record.route,
        status: record.status,
        duration_ms: record.durationMs,
        request_id: record.requestId,
        at: record.at
      }))
      yield* sql`
        INSERT INTO request_logs (workspace_id, key_id, method, route, status, duration_ms, request_id, created_at)
        SELECT workspace_id, key_id, method, route, status, duration_ms, request_id, to_timestamp(at / 1000.0)
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS t(workspace_id text, key_id text, method text, route text, status smallint, duration_ms double precision, request_id text, at double precision)
      `.pipe(orUnavailable)
    })

    const list = Effect.fn("RequestLogRepository.list")(function*(workspaceId: WorkspaceId, filter: RequestLogFilter, page: PageRequest) {
      const conditions = [
        sql`workspace_id = ${workspaceId}`,
        ...(filter.keyId === undefined ? [] : [sql`key_id = ${filter.keyId}`]),
        ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
        ...(filter.requestId === undefined ? [] : [sql`request_id = ${filter.requestId}`]),
        ...Option.match(decodeCursor(page.cursor), {
          onNone: () => [],
          onSome: (position) => [sql`(created_at, id) < (${DateTime.toDateUtc(position.createdAt)}, ${position.id}::bigint)`]
        })
      ]
      const rows = yield* sql`
        SELECT id::text AS id, workspace_id, key_id, method, route, status, duration_ms, request_id, created_at
        FROM request_logs
        WHERE ${sql.and(conditions)}
        ORDER BY created_at DESC, id DESC
        LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(decodeRows), orUnavailable)
      return toPage(rows.map((row) => new RequestLogEntry(row)), page)
    })

    const pruneBefore = Effect.fn("RequestLogRepository.pruneBefore")(function*(cutoff: DateTime.Utc) {
      const gone = yield* sql<{ readonly gone: number }>`
        WITH gone AS (DELETE FROM request_logs WHERE created_at < ${DateTime.toDateUtc(cutoff)} RETURNING 1)
        SELECT count(*)::int AS gone FROM gone
      `.pipe(orUnavailable)
      return gone[0]?.gone ?? 0
    })

    return RequestLogRepository.of({ appendAll, list, pruneBefore })
  })
)
