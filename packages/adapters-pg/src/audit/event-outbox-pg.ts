import { DomainEvent, EventOutbox, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { type Array as Arr, DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { tableReads } from "../shared/table-reads.ts"

/** The `events` row as the driver returns it (`data` as parsed `jsonb`). */
const DomainEventRow = Schema.Struct({
  ...DomainEvent.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

const columns = "id, workspace_id, type, created_at, data"

/**
 * One statement for a batch of events, whatever their number (they travel as one JSON array); also a fragment for a
 * data-modifying CTE of another statement that writes its change together with them (only if `onlyIf` holds).
 */
export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<DomainEvent>, onlyIf?: Fragment) => {
  const rows = events.map((event) => ({
    id: event.id,
    workspace_id: event.workspaceId,
    type: event.type,
    created_at: DateTime.formatIso(event.createdAt),
    data: event.data
  }))
  return sql`
    INSERT INTO events (id, workspace_id, type, created_at, data)
    SELECT id, workspace_id, type, created_at, data
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS t(id text, workspace_id text, type text, created_at timestamptz, data jsonb)
    ${onlyIf === undefined ? sql`` : sql`WHERE ${onlyIf}`}
  `
}

/** Postgres transactional outbox: an event appended inside `Transactor.withTransaction` exists only if the change commits. */
export const EventOutboxPg = Layer.effect(
  EventOutbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { newestInWorkspace, findInWorkspace } = tableReads(sql, { name: "events", columns, Row: DomainEventRow, Class: DomainEvent })

    const append = Effect.fn("EventOutbox.append")(function*(event: DomainEvent) {
      yield* sql`
        INSERT INTO events (${sql.literal(columns)})
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
