import { DateTime, Effect, Schema } from "effect"
import type { Actor } from "./actor.ts"
import { AuditEntry } from "./audit-entry.ts"
import { IdGenerator } from "./id-generator.ts"
import { AuditEntryId, EventId, type WorkspaceId } from "./ids.ts"
import { AuditLog } from "./ports/audit-log.ts"
import { EventOutbox } from "./ports/event-outbox.ts"
import { CurrentRequestId } from "./request-id.ts"
import { DomainEvent, eventCatalog, type EventData, type EventType } from "./webhook-events.ts"

/** The ports a recorded change writes to. */
export type ChangeDeps = IdGenerator | AuditLog | EventOutbox

/** What a state change leaves behind: an audit entry and, when it has one, its catalog event. */
export interface RecordedChange<T extends EventType> {
  readonly workspaceId: WorkspaceId
  readonly actor: Actor
  readonly action: string
  readonly target: string
  readonly event?: { readonly type: T; readonly data: EventData<T> }
}

/** Appends the audit entry and the outbox event of a change; call it inside the change's transaction. */
export const recordChange = Effect.fn("recordChange")(function*<T extends EventType>(change: RecordedChange<T>) {
  const ids = yield* IdGenerator
  const now = yield* DateTime.now
  const requestId = yield* CurrentRequestId
  yield* (yield* AuditLog).append(
    new AuditEntry({
      id: AuditEntryId.make(yield* ids.make("aud")),
      workspaceId: change.workspaceId,
      actor: change.actor,
      action: change.action,
      target: change.target,
      createdAt: now,
      requestId
    })
  )
  if (change.event === undefined) return
  const data = yield* Schema.encodeUnknownEffect(eventCatalog[change.event.type].data)(change.event.data).pipe(Effect.orDie)
  yield* (yield* EventOutbox).append(
    new DomainEvent({
      id: EventId.make(yield* ids.make("evt")),
      type: change.event.type,
      workspaceId: change.workspaceId,
      createdAt: now,
      data
    })
  )
})
