import { DomainEvent, EventOutbox, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { tableReads } from "../shared/table-reads.ts"

/** The `events` row as the driver returns it (`data` as parsed `jsonb`). */
const DomainEventRow = Schema.Struct({
  ...DomainEvent.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

const columns = "id, workspace_id, type, created_at, data"

/** Postgres transactional outbox: an event appended inside `Transactor.withTransaction` exists only if the change commits. */
export const EventOutboxPg = Layer.effect(
  EventOutbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { newestInWorkspace } = tableReads(sql, { name: "events", columns, Row: DomainEventRow, Class: DomainEvent })

    const append = Effect.fn("EventOutbox.append")(function*(event: DomainEvent) {
      yield* sql`
        INSERT INTO events (${sql.literal(columns)})
        VALUES (${event.id}, ${event.workspaceId}, ${event.type}, ${DateTime.toDateUtc(event.createdAt)}, ${JSON.stringify(event.data)}::jsonb)
      `.pipe(orUnavailable)
    })

    const list = Effect.fn("EventOutbox.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      return yield* newestInWorkspace(workspaceId, page)
    })

    return EventOutbox.of({ append, list })
  })
)
