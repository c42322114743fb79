import { Context, Effect, Layer } from "effect"
import type { Option } from "effect"
import type { Actor, Unavailable, WorkspaceId } from "../shared/index.ts"
import type { ChangeLog } from "./change-log.ts"
import type { DomainEvent } from "./domain-event.ts"

/** A change as subscribers see it: what was done, by whom, and the event it emitted for subscribers, if any. */
export interface RecordedChange {
  readonly workspaceId: WorkspaceId
  readonly actor: Actor
  readonly action: string
  readonly target: string
  readonly event: Option.Option<DomainEvent>
  /** Whom the change was made for, when its actor made it for someone else (see `Change.onBehalfOf`). */
  readonly onBehalfOf?: Actor | undefined
}

/**
 * Port: an area that reacts to changes (webhook fan-out, push, mail, schedules pausing) inside the transaction of the
 * change, so its reaction (a delivery row, a message row) commits with the change or not at all. The change log
 * provides itself, so a reaction that changes state records its own change.
 */
export interface EventSubscriber {
  readonly name: string
  /** The event types it reacts to: the change log hands it a change only when its event has one of them (or see `actions`). */
  readonly eventTypes: ReadonlySet<string>
  /** The audit actions it reacts to, whatever their event (a session's end); none when left out. */
  readonly actions?: ReadonlySet<string> | undefined
  readonly onChange: (change: RecordedChange) => Effect.Effect<void, Unavailable, ChangeLog>
  /** Reacts to a batch of changes at once (one lookup for many events); without it each change goes to `onChange`. */
  readonly onChanges?: ((changes: ReadonlyArray<RecordedChange>) => Effect.Effect<void, Unavailable, ChangeLog>) | undefined
}

/** The subscribers the change log notifies, in order; the composition root picks them. */
export class EventSubscribers extends Context.Service<EventSubscribers, ReadonlyArray<EventSubscriber>>()(
  "@atrium/domain/EventSubscribers"
) {
  /** Subscribers built from services in context (each area's fan-out service exposes its `subscriber`). */
  static readonly layerWith = <R>(subscribers: Effect.Effect<ReadonlyArray<EventSubscriber>, never, R>) => Layer.effect(EventSubscribers, subscribers)
}
