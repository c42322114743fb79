import { AuditEntry, AuditLog, DomainEvent, EventOutbox, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { type Array as Arr, DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { tableReads } from "../shared/table-reads.ts"

// The change log's two tables: every change writes its audit entry and its events together (`ChangeLog.record`).

/**
 * One statement for a batch of rows, whatever their number (they travel as one JSON array read as `recordset`, the
 * table's columns and types); also a fragment for a data-modifying CTE of another statement that writes its change
 * together with them (only if `onlyIf` holds).
 */
const insertRecordset = (sql: SqlClient.SqlClient, table: string, recordset: string, rows: ReadonlyArray<object>, onlyIf?: Fragment) => {
  const columns = recordset.split(",").map((column) => column.trim().split(" ")[0]).join(", ")
  return sql`
    INSERT INTO ${sql(table)} (${sql.literal(columns)})
    SELECT ${sql.literal(columns)}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS t(${sql.literal(recordset)})
    ${onlyIf === undefined ? sql`` : sql`WHERE ${onlyIf}`}
  `
}

/** The `audit_entries` row as the driver returns it (`actor` as parsed `jsonb`). */
const AuditEntryRow = Schema.Struct({
  ...AuditEntry.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

const auditColumns = "id, workspace_id, actor, action, target, created_at, request_id"

/** Audit entries in one statement (`insertRecordset`). */
export const insertAuditEntries = (sql: SqlClient.SqlClient, entries: ReadonlyArray<AuditEntry>, onlyIf?: Fragment) =>
  insertRecordset(
    sql,
    "audit_entries",
    "id text, workspace_id text, actor jsonb, action text, target text, created_at timestamptz, request_id text",
    entries.map((entry) => ({
      id: entry.id,
      workspace_id: entry.workspaceId,
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      created_at: DateTime.formatIso(entry.createdAt),
      request_id: Option.getOrNull(entry.requestId)
    })),
    onlyIf
  )

/** Postgres audit log: append-only, listed newest first. */
export const AuditLogPg = Layer.effect(
  AuditLog,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { newestInWorkspace } = tableReads(sql, { name: "audit_entries", columns: auditColumns, Row: AuditEntryRow, Class: AuditEntry })

    const append = Effect.fn("AuditLog.append")(function*(entry: AuditEntry) {
      yield* sql`
        INSERT INTO audit_entries (${sql.literal(auditColumns)})
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

/** The `events` row as the driver returns it (`data` as parsed `jsonb`). */
const DomainEventRow = Schema.Struct({
  ...DomainEvent.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

const eventColumns = "id, workspace_id, type, created_at, data"

/** Events in one statement (`insertRecordset`). */
export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<DomainEvent>, onlyIf?: Fragment) =>
  insertRecordset(
    sql,
    "events",
    "id text, workspace_id text, type text, created_at timestamptz, data jsonb",
    events.map((event) => ({
      id: event.id,
      workspace_id: event.workspaceId,
      type: event.type,
      created_at: DateTime.formatIso(event.createdAt),
      data: event.data
    })),
    onlyIf
  )

/** Postgres transactional outbox: an event appended inside `Transactor.withTransaction` exists only if the change commits. */
export const EventOutboxPg = Layer.effect(
  EventOutbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { newestInWorkspace, findInWorkspace } = tableReads(sql, { name: "events", columns: eventColumns, Row: DomainEventRow, Class: DomainEvent })

    const append = Effect.fn("EventOutbox.append")(function*(event: DomainEvent) {
      yield* sql`
        INSERT INTO events (${sql.literal(eventColumns)})
        VALUES (${event.id}, ${event.workspaceId}, ${event.type}, ${DateTime.toDateUtc(event.createdAt)}, ${JSON.stringify(event.data)}::jsonb)
      `.pipe(orUnavailable)
    })

    const appendAll = Effect.fn("EventOutbox.appendAll")(function*(events: Arr.NonEmptyReadonlyArray<DomainEvent>) {
      yield* insertEvents(sql, events).pipe(orUnavailable)
    })

    const list = Effect.fn("EventOutbox.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      return yield* newestInWorkspace(workspaceId, page)
    })

    return EventOutbox.of({ append, appendAll, list, findById: findInWorkspace })
  })
)
