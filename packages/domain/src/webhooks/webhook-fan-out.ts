import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import type { DomainEvent, EventSubscriber, RecordedChange } from "../audit/index.ts"
import { DeliveryId, IdGenerator, type Unavailable, type WebhookEndpointId } from "../shared/index.ts"
import { DeliveryRepository } from "./delivery-repository.ts"
import { WebhookDelivery } from "./webhook-delivery.ts"
import { WebhookEndpointRepository } from "./webhook-endpoint-repository.ts"
import { EventType } from "./webhook-events.ts"

const isEventType = Schema.is(EventType)
// Every catalog event goes to the endpoints subscribed to it; an event type outside the catalog has none by construction.
const catalogTypes: ReadonlySet<string> = new Set(EventType.literals)

/** Turns an event into one pending delivery per endpoint, in the transaction of the change that emitted it. */
export class WebhookFanOut extends Context.Service<WebhookFanOut, {
  /** One pending delivery per endpoint named. */
  readonly deliverTo: (event: DomainEvent, endpoints: ReadonlyArray<WebhookEndpointId>) => Effect.Effect<ReadonlyArray<WebhookDelivery>, Unavailable>
  /** The change-log subscriber: every enabled endpoint of the workspace subscribed to the event's type. */
  readonly subscriber: EventSubscriber
}>()("@atrium/domain/WebhookFanOut") {
  static readonly layer = Layer.effect(
    WebhookFanOut,
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      const endpoints = yield* WebhookEndpointRepository
      const deliveries = yield* DeliveryRepository

      // One pending delivery per endpoint named, not yet stored.
      const pendingFor = Effect.fnUntraced(function*(event: DomainEvent, targets: ReadonlyArray<WebhookEndpointId>) {
        const eventType = event.type
        if (targets.length === 0 || !isEventType(eventType)) return []
        const now = yield* DateTime.now
        return yield* Effect.forEach(targets, (endpointId) =>
          ids.make("msg").pipe(Effect.map((id) =>
            new WebhookDelivery({
              id: DeliveryId.make(id),
              workspaceId: event.workspaceId,
              endpointId,
              eventId: event.id,
              eventType,
              status: "pending",
              attemptCount: 0,
              nextAttemptAt: Option.some(now),
              lastStatusCode: Option.none(),
              replayOf: Option.none(),
              createdAt: now,
              updatedAt: now
            })
          )))
      })

      const deliverTo = Effect.fn("WebhookFanOut.deliverTo")(
        function*(event: DomainEvent, targets: ReadonlyArray<WebhookEndpointId>) {
          const pending = yield* pendingFor(event, targets)
          if (pending.length > 0) yield* deliveries.insertMany(pending)
          return pending
        }
      )

      // A batch of changes (e.g. settled tasks): one lookup per workspace and event type, one insert for every delivery.
      const onChanges = Effect.fnUntraced(function*(changes: ReadonlyArray<RecordedChange>) {
        const subscribed = new Map<string, ReadonlyArray<WebhookEndpointId>>()
        const pending: Array<WebhookDelivery> = []
        for (const change of changes) {
          if (Option.isNone(change.event)) continue
          const event = change.event.value
          const type = event.type
          if (!isEventType(type)) continue
          const key = `${event.workspaceId} ${type}`
          const known = subscribed.get(key)
          const targets = known ?? (yield* endpoints.listSubscribed(event.workspaceId, type)).map((endpoint) => endpoint.id)
          subscribed.set(key, targets)
          pending.push(...yield* pendingFor(event, targets))
        }
        if (pending.length > 0) yield* deliveries.insertMany(pending)
      })

      const subscriber: EventSubscriber = {
        name: "webhooks",
        eventTypes: catalogTypes,
        onChange: (change) => {
          if (Option.isNone(change.event)) return Effect.void
          const event = change.event.value
          const type = event.type
          if (!isEventType(type)) return Effect.void
          return endpoints.listSubscribed(event.workspaceId, type).pipe(
            Effect.flatMap((subscribed) => deliverTo(event, subscribed.map((endpoint) => endpoint.id))),
            Effect.asVoid
          )
        },
        onChanges
      }

      return WebhookFanOut.of({ deliverTo, subscriber })
    })
  )

}
