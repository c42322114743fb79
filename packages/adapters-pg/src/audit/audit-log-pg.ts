import { AuditEntry, AuditLog, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { tableReads } from "../shared/table-reads.ts"

/** The `audit_entries` row as the driver returns it (`actor` as parsed `jsonb`). */
const AuditEntryRow = Schema.Struct({
  ...AuditEntry.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

const columns = "id, workspace_id, actor, action, target, created_at, request_id"

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

    const list = Effect.fn("AuditLog.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      return yield* newestInWorkspace(workspaceId, page)
    })

    return AuditLog.of({ append, list })
  })
)
