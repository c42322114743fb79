import { AuditEntry, AuditLog, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { type Array as Arr, DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { tableReads } from "../shared/table-reads.ts"

/** The `audit_entries` row as the driver returns it (`actor` as parsed `jsonb`). */
const AuditEntryRow = Schema.Struct({
  ...AuditEntry.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

const columns = "id, workspace_id, actor, action, target, created_at, request_id"

/**
 * One statement for a batch of audit entries, whatever their number (they travel as one JSON array); also a fragment for
 * a data-modifying CTE of another statement that writes its change together with them (only if `onlyIf` holds).
 */
export const insertAuditEntries = (sql: SqlClient.SqlClient, entries: ReadonlyArray<AuditEntry>, onlyIf?: Fragment) => {
  const rows = entries.map((entry) => ({
    id: entry.id,
    workspace_id: entry.workspaceId,
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    created_at: DateTime.formatIso(entry.createdAt),
    request_id: Option.getOrNull(entry.requestId)
  }))
  return sql`
    INSERT INTO audit_entries (id, workspace_id, actor, action, target, created_at, request_id)
    SELECT id, workspace_id, actor, action, target, created_at, request_id
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS t(id text, workspace_id text, actor jsonb, action text, target text, created_at timestamptz, request_id text)
    ${onlyIf === undefined ? sql`` : sql`WHERE ${onlyIf}`}
  `
}

/** Postgres audit log: append-only, listed newest first. */
export const AuditLogPg = Layer.effect(
  AuditLog,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { newestInWorkspace } = tableReads(sql, { name: "audit_entries", columns, Row: AuditEntryRow, Class: AuditEntry })

    const append = Effect.fn("AuditLog.append")(function*(entry: AuditEntry) {
      yield* sql`
        INSERT INTO audit_entries (${sql.literal(columns)})
        VALUES (
          ${entry.id}, ${entry.workspaceId}, ${JSON.stringify(entry.actor)}::jsonb, ${entry.action}, ${entry.target},
          ${DateTime.toDateUtc(entry.createdAt)}, ${Option.getOrNull(entry.requestId)}
        )
      `.pipe(orUnavailable)
    })

    const appendAll = Effect.fn("AuditLog.appendAll")(function*(entries: Arr.NonEmptyReadonlyArray<AuditEntry>) {
      yield* insertAuditEntries(sql, entries).pipe(orUnavailable)
    })

    const list = Effect.fn("AuditLog.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      return yield* newestInWorkspace(workspaceId, page)
    })

    return AuditLog.of({ append, appendAll, list })
  })
)
