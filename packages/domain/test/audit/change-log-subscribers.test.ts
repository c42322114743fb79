import { assert, describe, it } from "@effect/vitest"
import {
  ChangeLog,
  DomainEvent,
  defineEvent,
  emit,
  EventId,
  eventDefinitions,
  type EventSubscriber,
  EventSubscribers,
  PushFanOut,
  PushNotifications,
  type RecordedChange,
  ScheduleReactions,
  sessionEndedActions,
  WebhookEndpoints,
  WebhookFanOut,
  type Change,
  IdGenerator,
  SecureRandom,
  systemActor,
  WorkspaceId
} from "@atrium/domain"
import { AuditLogMemory, Domain, EventOutboxMemory, MemoryStore, ownerPrincipal, PushServiceMemory } from "@atrium/domain/testing"
import { Arbitrary, DateTime, Effect, Layer, Option, Redacted, Ref, Schema } from "effect"
import { team } from "../support/identity.ts"

const Numbered = Schema.Struct({ n: Schema.Number })
const keyMade = defineEvent("test.key_made", "A key was made.", Numbered)
const grantMade = defineEvent("test.grant_made", "A grant was made.", Numbered)
const otherMade = defineEvent("test.other_made", "Nobody listens.", Numbered)
const workspaceId = WorkspaceId.make("ws_test")

describe("ChangeLog subscribers", () => {
  it.effect("hands each subscriber only the changes whose event type or action it declared, before the change returns", () => {
    const handed: Array<string> = []
    const seen = (name: string) => (change: RecordedChange) =>
      Effect.sync(() => {
        handed.push(`${name}:${change.action}`)
      })
    const keys: EventSubscriber = { name: "keys", eventTypes: new Set([keyMade.type]), onChange: seen("keys") }
    const grants: EventSubscriber = {
      name: "grants",
      eventTypes: new Set([grantMade.type]),
      actions: new Set(["session.signed_out"]),
      onChange: seen("grants-one"),
      onChanges: (changes) => Effect.forEach(changes, seen("grants"), { discard: true })
    }
    const layer = ChangeLog.layer.pipe(
      Layer.provide(EventSubscribers.layerWith(Effect.succeed([keys, grants]))),
      Layer.provide(Layer.mergeAll(AuditLogMemory, EventOutboxMemory).pipe(Layer.provideMerge(MemoryStore.layer))),
      Layer.provide(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layer)))
    )
    return Effect.gen(function*() {
      const changes = yield* ChangeLog
      const change = (action: string, event?: Change["event"]): Change => ({ workspaceId, actor: systemActor("test"), action, target: "t", event })
      yield* changes.record(change("key.one", emit(keyMade, { n: 1 })))
      // Reacted to inside `record`: what the change's transaction runs.
      assert.deepStrictEqual(handed, ["keys:key.one"])
      yield* changes.record(change("other.one", emit(otherMade, { n: 2 })))
      yield* changes.record(change("audit.only"))
      yield* changes.recordAll([
        change("grant.one", emit(grantMade, { n: 3 })),
        change("session.signed_out"),
        change("key.quiet", emit(keyMade, { n: 4 }, { notify: false })),
        change("key.two", emit(keyMade, { n: 5 })),
        change("other.two", emit(otherMade, { n: 6 }))
      ])
      yield* changes.recordAllWith([change("other.three", emit(otherMade, { n: 7 })), change("grant.two", emit(grantMade, { n: 8 }))], () => Effect.void)
      yield* changes.recordAllWith([change("other.four", emit(otherMade, { n: 9 }))], () => Effect.void)
      assert.deepStrictEqual(handed, ["keys:key.one", "keys:key.two", "grants:grant.one", "grants:session.signed_out", "grants:grant.two"])
    }).pipe(Effect.provide(layer))
  })
})

// Every subscriber of the domain, as the composition root wires them.
const subscribers = Effect.all([WebhookFanOut, PushFanOut, ScheduleReactions]).pipe(
  Effect.map((services) => services.map((service) => service.subscriber))
)
const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))

// A workspace where every reaction has something to act on: members with phones (push), an endpoint taking every event
// type (webhooks), sessions that may end.
const world = Effect.gen(function*() {
  const { owner, ownerPrincipal: principal, workspace, join } = yield* team
  const admin = yield* join("admin@example.com", "admin")
  const member = yield* join("member@example.com", "member")
  const push = yield* PushNotifications
  const phone = (n: number) => ({ expoPushToken: Redacted.make(`ExponentPushToken[device${n}xxxxxxxxxxxxxxx]`), platform: "android" as const, appVersion: "2.1.0", locale: "de-DE" })
  yield* push.register(principal, "owner-phone", phone(1))
  yield* push.register(admin.principal, "admin-phone", phone(2))
  yield* push.register(member.principal, "member-phone", phone(3))
  yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: "https://hooks.example.com/all" })
  return { workspace, sessionId: owner.session.session.id, memberUserId: member.user.id }
})

const react = (subscriber: EventSubscriber, change: RecordedChange) =>
  (subscriber.onChanges === undefined ? subscriber.onChange(change) : subscriber.onChanges([change])).pipe(
    Effect.andThen(subscriber.onChange(change))
  )

describe("Each subscriber's declared event types and actions", () => {
  it.effect("for every catalog event type and session ending it does not declare, a subscriber called with it anyway does nothing", () =>
    Effect.gen(function*() {
      const { workspace, sessionId } = yield* world
      const now = yield* DateTime.now
      let checked = 0
      for (const subscriber of yield* subscribers) {
        for (const definition of eventDefinitions.filter((definition) => !subscriber.eventTypes.has(definition.type))) {
          const samples = yield* Arbitrary.sampleEffect(Arbitrary.schema(definition.data), { count: 5, seed: definition.type })
          for (const sample of samples) {
            const data = yield* Schema.encodeUnknownEffect(definition.data)(sample)
            const event = new DomainEvent({ id: EventId.make(`evt_${checked}`), type: definition.type, workspaceId: workspace.id, createdAt: now, data })
            const before = yield* state
            yield* react(subscriber, { workspaceId: workspace.id, actor: systemActor("test"), action: definition.type, target: sessionId, event: Option.some(event) })
            assert.strictEqual(yield* state, before, `${subscriber.name} acted on ${definition.type}`)
            checked++
          }
        }
        for (const action of [...sessionEndedActions].filter((action) => subscriber.actions?.has(action) !== true)) {
          const before = yield* state
          yield* react(subscriber, { workspaceId: workspace.id, actor: systemActor("test"), action, target: sessionId, event: Option.none() })
          assert.strictEqual(yield* state, before, `${subscriber.name} acted on ${action}`)
        }
      }
      // Push and the schedules declare a few types each; the walk above covered the rest of the catalog for both.
      assert.isAbove(checked, eventDefinitions.length)
    }).pipe(Effect.provide(Domain.layerMemory.pipe(Layer.provideMerge(PushServiceMemory)))))

  it.effect("the ones they declare are ones they act on: webhooks every catalog type, push a session's end and the admins' notices", () =>
    Effect.gen(function*() {
      const { workspace, sessionId } = yield* world
      const now = yield* DateTime.now
      const webhooks = (yield* WebhookFanOut).subscriber
      const push = (yield* PushFanOut).subscriber
      assert.deepStrictEqual([...webhooks.eventTypes].sort(), eventDefinitions.map((definition) => definition.type).sort())
      for (const [n, definition] of eventDefinitions.entries()) {
        const [sample] = yield* Arbitrary.sampleEffect(Arbitrary.schema(definition.data), { count: 1, seed: definition.type })
        const data = yield* Schema.encodeUnknownEffect(definition.data)(sample)
        const event = new DomainEvent({ id: EventId.make(`evt_${n}`), type: definition.type, workspaceId: workspace.id, createdAt: now, data })
        const before = (yield* state).deliveries.size
        yield* webhooks.onChange({ workspaceId: workspace.id, actor: systemActor("test"), action: definition.type, target: "t", event: Option.some(event) })
        assert.strictEqual((yield* state).deliveries.size, before + 1, `no delivery for ${definition.type}`)
      }
      assert.deepStrictEqual([...push.actions ?? []].sort(), [...sessionEndedActions].sort())
      for (const [n, type] of ["usage.cap_reached", "purchase.status_changed", "schedule.paused"].entries()) {
        assert.isTrue(push.eventTypes.has(type))
        const event = new DomainEvent({ id: EventId.make(`evt_push${n}`), type, workspaceId: workspace.id, createdAt: now, data: {} })
        const before = (yield* state).pushMessages.size
        yield* push.onChange({ workspaceId: workspace.id, actor: systemActor("test"), action: type, target: "t", event: Option.some(event) })
        assert.strictEqual((yield* state).pushMessages.size, before + 2, `owner and admin not told of ${type}`)
      }
      const devices = (yield* state).pushDevices.size
      yield* push.onChange({ workspaceId: workspace.id, actor: systemActor("test"), action: "session.signed_out", target: sessionId, event: Option.none() })
      assert.strictEqual((yield* state).pushDevices.size, devices - 1)
    }).pipe(Effect.provide(Domain.layerMemory.pipe(Layer.provideMerge(PushServiceMemory)))))
})
