import { Array as Arr, Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { type Actor, AuditEntryId, CurrentRequestId, EventId, IdGenerator, type Unavailable, type WorkspaceId } from "../shared/index.ts"
import { AuditEntry } from "./audit-entry.ts"
import { AuditLog } from "./audit-log.ts"
import { DomainEvent } from "./domain-event.ts"
import type { EventDefinition } from "./event-definition.ts"
import { EventOutbox } from "./event-outbox.ts"
import { type EventSubscriber, EventSubscribers, type RecordedChange } from "./event-subscribers.ts"

/** An event payload schema that needs no services to encode. */
export type EventPayload = Schema.Top & { readonly EncodingServices: never }

/** The event a change emits, typed by its definition. `notify: false` keeps it from subscribers (the emitting area routes it). */
export interface EmittedEvent<Type extends string, Data extends EventPayload> {
  readonly definition: EventDefinition<Type, Data>
  readonly data: Data["Type"]
  readonly notify?: boolean | undefined
}

/** What a state change leaves behind: an audit entry and, when it has one, its catalog event. */
export interface Change<Type extends string = string, Data extends EventPayload = EventPayload> {
  readonly workspaceId: WorkspaceId
  readonly actor: Actor
  readonly action: string
  readonly target: string
  readonly event?: EmittedEvent<Type, Data> | undefined
  /** The request the change was made in, when recorded away from that request's fiber (a batch); the current one otherwise. */
  readonly requestId?: Option.Option<string> | undefined
  /** Whom the change was made for when `actor` made it for someone else (a finished task's submitter), for subscribers. */
  readonly onBehalfOf?: Actor | undefined
}

/** The rows a batch of changes leaves: their audit entries and the events they emit, for one write of a caller's own. */
export interface RecordedChanges {
  readonly entries: ReadonlyArray<AuditEntry>
  readonly events: ReadonlyArray<DomainEvent>
}

/** An event of a change, typed by its definition. */
export const emit = <Type extends string, Data extends EventPayload>(
  definition: EventDefinition<Type, Data>,
  data: Data["Type"],
  options?: { readonly notify?: boolean }
): EmittedEvent<Type, Data> => ({ definition, data, notify: options?.notify })

/** Whether a subscriber declared a change: its event's type, or its action. */
const concerns = (subscriber: EventSubscriber, change: RecordedChange): boolean =>
  (Option.isSome(change.event) && subscriber.eventTypes.has(change.event.value.type)) || subscriber.actions?.has(change.action) === true

/**
 * THE way a state change is recorded: the audit entry, the outbox event and the reaction of each subscriber that
 * declared it (webhook deliveries, push messages) — call it inside the change's transaction so all of them commit
 * together or not at all.
 */
export class ChangeLog extends Context.Service<ChangeLog, {
  readonly record: <Type extends string, Data extends EventPayload>(
    change: Change<Type, Data>
  ) => Effect.Effect<Option.Option<DomainEvent>, Unavailable>
  /**
   * Records many changes as `record` records each, with one write of their audit entries and one of their events (a
   * batch of submissions); the result lists each change's event, in order.
   */
  readonly recordAll: (changes: ReadonlyArray<Change>) => Effect.Effect<ReadonlyArray<Option.Option<DomainEvent>>, Unavailable>
  /**
   * Records many changes as `recordAll` does, except that `write` stores their audit entries and events, in the same
   * statement as the change itself (a batch's one write); the subscribers react after it, in the same transaction.
   */
  readonly recordAllWith: <A, E, R>(
    changes: ReadonlyArray<Change>,
    write: (recorded: RecordedChanges) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | Unavailable, R>
}>()("@atrium/domain/ChangeLog") {
  static readonly layer = Layer.effect(
    ChangeLog,
    Effect.gen(function*() {
      const ids = yield* IdGenerator
      const audit = yield* AuditLog
      const outbox = yield* EventOutbox
      const subscribers = yield* EventSubscribers

      const eventOf = Effect.fnUntraced(function*<Type extends string, Data extends EventPayload>(change: Change<Type, Data>, now: DateTime.Utc) {
        const emitted = change.event
        if (emitted === undefined) return Option.none<DomainEvent>()
        // A payload that does not match its own definition is a programming error, never a client's.
        const data = yield* Schema.encodeUnknownEffect(emitted.definition.data)(emitted.data).pipe(Effect.orDie)
        return Option.some(
          new DomainEvent({ id: EventId.make(yield* ids.make("evt")), type: emitted.definition.type, workspaceId: change.workspaceId, createdAt: now, data })
        )
      })

      const entryOf = Effect.fnUntraced(function*(change: Change, now: DateTime.Utc) {
        return new AuditEntry({
          id: AuditEntryId.make(yield* ids.make("aud")),
          workspaceId: change.workspaceId,
          actor: change.actor,
          action: change.action,
          target: change.target,
          createdAt: now,
          requestId: change.requestId ?? (yield* CurrentRequestId)
        })
      })

      const recordedOf = (change: Change, event: Option.Option<DomainEvent>): RecordedChange => ({
        workspaceId: change.workspaceId,
        actor: change.actor,
        action: change.action,
        target: change.target,
        event: change.event?.notify === false ? Option.none<DomainEvent>() : event,
        onBehalfOf: change.onBehalfOf
      })

      // Every subscriber reacts to the changes it declared, in their transaction: at once when it takes a batch, else one
      // by one; one that declared none of them is not called at all.
      const notifyAll = (changes: ReadonlyArray<Change>, events: ReadonlyArray<Option.Option<DomainEvent>>) => {
        const recorded = Arr.zipWith(changes, events, recordedOf)
        return Effect.forEach(subscribers, (subscriber) => {
          const handed = recorded.filter((change) => concerns(subscriber, change))
          if (handed.length === 0) return Effect.void
          return (subscriber.onChanges === undefined
            ? Effect.forEach(handed, subscriber.onChange, { discard: true })
            : subscriber.onChanges(handed)).pipe(Effect.provideService(ChangeLog, self))
        }, { discard: true })
      }

      const record = Effect.fn("ChangeLog.record")(function*<Type extends string, Data extends EventPayload>(change: Change<Type, Data>) {
        const now = yield* DateTime.now
        yield* audit.append(yield* entryOf(change, now))
        const event = yield* eventOf(change, now)
        if (Option.isSome(event)) yield* outbox.append(event.value)
        yield* notifyAll([change], [event])
        return event
      })

      const prepare = Effect.fnUntraced(function*(changes: ReadonlyArray<Change>) {
        const now = yield* DateTime.now
        const entries = yield* Effect.forEach(changes, (change) => entryOf(change, now))
        const events = yield* Effect.forEach(changes, (change) => eventOf(change, now))
        return { entries, events }
      })

      const recordAll = Effect.fn("ChangeLog.recordAll")(function*(changes: ReadonlyArray<Change>) {
        const { entries, events } = yield* prepare(changes)
        if (Arr.isReadonlyArrayNonEmpty(entries)) yield* audit.appendAll(entries)
        const emitted = Arr.getSomes(events)
        if (Arr.isReadonlyArrayNonEmpty(emitted)) yield* outbox.appendAll(emitted)
        yield* notifyAll(changes, events)
        return events
      })

      const recordAllWith = <A, E, R>(changes: ReadonlyArray<Change>, write: (recorded: RecordedChanges) => Effect.Effect<A, E, R>) =>
        Effect.gen(function*() {
          const { entries, events } = yield* prepare(changes)
          const written = yield* write({ entries, events: Arr.getSomes(events) })
          yield* notifyAll(changes, events)
          return written
        }).pipe(Effect.withSpan("ChangeLog.recordAllWith"))

      const self: ChangeLog["Service"] = ChangeLog.of({ record, recordAll, recordAllWith })
      return self
    })
  )
}
