import { DateTime, Effect, Option, Schema } from "effect"
import type { Actor } from "./actor.ts"
import { AuditEntry } from "./audit-entry.ts"
import { IdGenerator } from "./id-generator.ts"
import { AuditEntryId, DeliveryId, EventId, type WebhookEndpointId, type WorkspaceId } from "./ids.ts"
import { AuditLog } from "./ports/audit-log.ts"
import { DeliveryRepository } from "./ports/delivery-repository.ts"
import { EventOutbox } from "./ports/event-outbox.ts"
import { WebhookEndpointRepository } from "./ports/webhook-endpoint-repository.ts"
import { CurrentRequestId } from "./request-id.ts"
import { WebhookDelivery } from "./webhook-delivery.ts"
import { DomainEvent, eventCatalog, type EventData, type EventType } from "./webhook-events.ts"

/** The ports a recorded change writes to. */
export type ChangeDeps = IdGenerator | AuditLog | EventOutbox | WebhookEndpointRepository | DeliveryRepository

/** The event a change emitted and the deliveries it fanned out to. */
export interface RecordedEvent {
  readonly event: DomainEvent
  readonly deliveries: ReadonlyArray<WebhookDelivery>
}

/** What a state change leaves behind: an audit entry and, when it has one, its catalog event. */
export interface RecordedChange<T extends EventType> {
  readonly workspaceId: WorkspaceId
  readonly actor: Actor
  readonly action: string
  readonly target: string
  readonly event?: {
    readonly type: T
    readonly data: EventData<T>
    /** Deliver to this endpoint only (test events), instead of to every subscribed endpoint. */
    readonly onlyEndpoint?: WebhookEndpointId | undefined
  }
}

/**
 * Appends the audit entry, the outbox event and one pending delivery per subscribed endpoint; call it inside the
 * change's transaction so all of them commit with the change or not at all.
 */
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
  if (change.event === undefined) return undefined
  const data = yield* Schema.encodeUnknownEffect(eventCatalog[change.event.type].data)(change.event.data).pipe(Effect.orDie)
  const event = new DomainEvent({
    id: EventId.make(yield* ids.make("evt")),
    type: change.event.type,
    workspaceId: change.workspaceId,
    createdAt: now,
    data
  })
  yield* (yield* EventOutbox).append(event)
  const only = change.event.onlyEndpoint
  const endpoints = yield* WebhookEndpointRepository
  const targets = only === undefined
    ? (yield* endpoints.listSubscribed(change.workspaceId, event.type)).map((endpoint) => endpoint.id)
    : [only]
  if (targets.length === 0) return { event, deliveries: [] }
  const deliveries = yield* Effect.forEach(targets, (endpointId) =>
    ids.make("msg").pipe(Effect.map((id) =>
      new WebhookDelivery({
        id: DeliveryId.make(id),
        workspaceId: change.workspaceId,
        endpointId,
        eventId: event.id,
        eventType: event.type,
        status: "pending",
        attemptCount: 0,
        nextAttemptAt: Option.some(now),
        lastStatusCode: Option.none(),
        replayOf: Option.none(),
        createdAt: now,
        updatedAt: now
      })
    )))
  yield* (yield* DeliveryRepository).insertMany(deliveries)
  const recorded: RecordedEvent = { event, deliveries }
  return recorded
})
