import { Context, Effect, Layer } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { ChangeLog } from "./change-log.ts"
import type { DomainEvent } from "./domain-event.ts"

/**
 * Port: an area that reacts to events (webhook fan-out, push, schedules pausing) inside the transaction of the change
 * that emitted them. The change log provides itself, so a reaction that changes state records its own change.
 */
export interface EventSubscriber {
  readonly name: string
  readonly onEvent: (event: DomainEvent) => Effect.Effect<void, Unavailable, ChangeLog>
}

/** The subscribers the change log notifies, in order; the composition root picks them. */
export class EventSubscribers extends Context.Service<EventSubscribers, ReadonlyArray<EventSubscriber>>()(
  "@atrium/domain/EventSubscribers"
) {
  /** Subscribers built from services in context (each area exposes an `Effect` that yields its subscriber). */
  static readonly layerFrom = <R>(...subscribers: ReadonlyArray<Effect.Effect<EventSubscriber, never, R>>) =>
    Layer.effect(EventSubscribers, Effect.all(subscribers))

  /** No subscribers: events reach the outbox only. */
  static readonly layerNone = Layer.succeed(EventSubscribers, [])
}
