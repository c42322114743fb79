import { DomainEvent, EventOutbox, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { type Array as Arr, DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterCursor, fetchSize, toPage } from "../shared/keyset-page.ts"
import { orUnavailable } from "../shared/sql-errors.ts"

/** The `events` row as the driver returns it (`data` as parsed `jsonb`). */
const DomainEventRow = Schema.Struct({
  ...DomainEvent.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(Schema.encodeKeys({ workspaceId: "workspace_id", createdAt: "created_at" }))

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(DomainEventRow))

/** Postgres transactional outbox: an event appended inside `Transactor.withTransaction` exists only if the change commits. */
export const EventOutboxPg = Layer.effect(
  EventOutbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const append = Effect.fn("EventOutbox.append")(function*(event: DomainEvent) {
      yield* sql`
        INSERT INTO events (id, workspace_id, type, created_at, data)
        VALUES (${event.id}, ${event.workspaceId}, ${event.type}, ${DateTime.toDateUtc(event.createdAt)}, ${JSON.stringify(event.data)}::jsonb)
      `.pipe(orUnavailable)
    })

    // One statement for the batch: the events travel as one JSON array, whatever their number.
    const appendAll = Effect.fn("EventOutbox.appendAll")(function*(events: Arr.NonEmptyReadonlyArray<DomainEvent>) {
      const rows = events.map((event) => ({
        id: event.id,
        workspace_id: event.workspaceId,
        type: event.type,
        created_at: DateTime.formatIso(event.createdAt),
        data: event.data
      }))
      yield* sql`
        INSERT INTO events (id, workspace_id, type, created_at, data)
        SELECT id, workspace_id, type, created_at, data
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS t(id text, workspace_id text, type text, created_at timestamptz, data jsonb)
      `.pipe(orUnavailable)
    })

    const list = Effect.fn("EventOutbox.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      const events = yield* sql`
        SELECT id, workspace_id, type, created_at, data FROM events
        WHERE workspace_id = ${workspaceId} AND ${afterCursor(sql, page)}
        ORDER BY created_at DESC, id COLLATE "C" DESC
        LIMIT ${fetchSize(page)}
      `.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows.map((row) => new DomainEvent(row))),
        orUnavailable
      )
      return toPage(events, page)
    })

    return EventOutbox.of({ append, appendAll, list })
  })
)
