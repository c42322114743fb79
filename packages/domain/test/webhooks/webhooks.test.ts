import { assert, describe, it } from "@effect/vitest"
import {
  ApiKeyId,
  ApiKeyPrincipal,
  ApiKeys,
  SessionPrincipal,
  retryDelays,
  Transactor,
  WebhookDeliveries,
  WebhookEndpoints,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { answer, Domain, MemoryStore, ownerPrincipal, runDueDeliveries, ScriptedReceiver, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { DateTime, Duration, Effect, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { Webhook } from "standardwebhooks"

const setup = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
  const created = yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: "https://hooks.example.com/a" })
  return { workspace, ...created }
})

const createKey = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    return yield* (yield* ApiKeys).create(systemPrincipal(workspaceId), { name: "k" })
  })

// The public verifier checks the timestamp against the wall clock, so these tests start the TestClock at now.
const realTime = Effect.suspend(() => TestClock.setTime(Date.now()))

/** One worker pass: claim what is due, send it, record each attempt. */
const workerPass = Effect.gen(function*() {
  return yield* runDueDeliveries(100)
})

const script = (...statuses: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    yield* Ref.set((yield* ScriptedReceiver).script, statuses.map((status) => answer(status)))
  })

const sentRequests = Effect.gen(function*() {
  return yield* Ref.get((yield* ScriptedReceiver).requests)
})
const state = Effect.gen(function*() {
  return yield* Ref.get((yield* MemoryStore).state)
})

describe("webhook fan-out", () => {
  it.effect("a change fans out one pending delivery per subscribed endpoint, in its transaction", () =>
    Effect.gen(function*() {
      const { workspace } = yield* setup
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), {
        url: "https://hooks.example.com/only-revocations",
        eventTypes: ["api_key.revoked"]
      })
      const { apiKey } = yield* createKey(workspace.id)
      assert.deepStrictEqual(Array.from((yield* state).deliveries.values()).map((d) => d.eventType), ["api_key.created"])
      yield* (yield* ApiKeys).revoke(systemPrincipal(workspace.id), apiKey.id)
      assert.strictEqual((yield* state).deliveries.size, 3)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a rolled-back change leaves no event and no delivery", () =>
    Effect.gen(function*() {
      const { workspace } = yield* setup
      const before = yield* state
      yield* (yield* Transactor).withTransaction(
        Effect.andThen(createKey(workspace.id), Effect.fail("rolled back"))
      ).pipe(Effect.flip)
      const after = yield* state
      assert.strictEqual(after.events.length, before.events.length)
      assert.strictEqual(after.deliveries.size, before.deliveries.size)
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("webhook delivery", () => {
  it.effect("signs with Standard Webhooks; the public verifier accepts it; webhook-id is the event id", () =>
    Effect.gen(function*() {
      yield* realTime
      const { workspace, secret } = yield* setup
      yield* createKey(workspace.id)
      yield* workerPass
      const [request] = yield* sentRequests
      assert.isDefined(request)
      if (request === undefined) return
      const payload = new Webhook(Redacted.value(secret).slice("whsec_".length)).verify(request.body, request.headers)
      assert.deepInclude(payload, { type: "api_key.created", workspaceId: workspace.id })
      const event = (yield* state).events.find((e) => e.type === "api_key.created")
      assert.strictEqual(request.headers["webhook-id"], event?.id)
      assert.notInclude(request.body, "whsec_")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a receiver failing twice then succeeding: three attempts recorded on the schedule", () =>
    Effect.gen(function*() {
      const { workspace } = yield* setup
      yield* script(500, 503, 200)
      yield* createKey(workspace.id)
      const [first] = yield* workerPass
      assert.strictEqual(first?.number, 1)
      const firstDelay = Option.map(first?.nextAttemptAt ?? Option.none(), (t) => DateTime.toEpochMillis(t) - DateTime.toEpochMillis(first?.startedAt ?? t))
      // 5 s ± 20 % jitter.
      assert.isTrue(Option.isSome(firstDelay) && firstDelay.value >= 4_000 && firstDelay.value <= 6_000)
      assert.deepStrictEqual(yield* workerPass, [])
      yield* TestClock.adjust("6 seconds")
      const [second] = yield* workerPass
      assert.strictEqual(second?.number, 2)
      yield* TestClock.adjust("4 minutes")
      assert.deepStrictEqual(yield* workerPass, [])
      yield* TestClock.adjust("2 minutes")
      const [third] = yield* workerPass
      assert.strictEqual(third?.number, 3)
      const s = yield* state
      const delivery = Array.from(s.deliveries.values())[0]
      assert.strictEqual(delivery?.status, "succeeded")
      assert.deepStrictEqual(s.attempts.map((a) => Option.getOrNull(a.statusCode)), [500, 503, 200])
      assert.deepStrictEqual(s.attempts.map((a) => Option.getOrNull(a.errorKind)), ["non_2xx", "non_2xx", null])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a 429 Retry-After is honoured within bounds", () =>
    Effect.gen(function*() {
      const { workspace } = yield* setup
      const receiver = yield* ScriptedReceiver
      yield* Ref.set(receiver.script, [answer(429, { retryAfterSeconds: 120 })])
      yield* createKey(workspace.id)
      const [attempt] = yield* workerPass
      const delay = Option.map(attempt?.nextAttemptAt ?? Option.none(), (t) => DateTime.toEpochMillis(t) - DateTime.toEpochMillis(attempt?.startedAt ?? t))
      assert.deepStrictEqual(delay, Option.some(120_000))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("after eight failed attempts the delivery is failed", () =>
    Effect.gen(function*() {
      const { workspace } = yield* setup
      yield* script(...Array.from({ length: 8 }, () => 500))
      yield* createKey(workspace.id)
      for (let attempt = 0; attempt < 8; attempt++) {
        yield* workerPass
        yield* TestClock.adjust(Duration.sum(retryDelays[attempt] ?? Duration.zero, Duration.hours(3)))
      }
      const s = yield* state
      assert.strictEqual(s.attempts.length, 8)
      assert.strictEqual(Array.from(s.deliveries.values())[0]?.status, "failed")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a claimed delivery whose worker died is claimed again when its lease ends", () =>
    Effect.gen(function*() {
      const { workspace } = yield* setup
      yield* createKey(workspace.id)
      const deliveries = yield* WebhookDeliveries
      assert.strictEqual((yield* deliveries.claim(10)).length, 1)
      assert.strictEqual((yield* deliveries.claim(10)).length, 0)
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual((yield* deliveries.claim(10)).length, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("an attempt written twice (a repeated write) is stored once and moves its delivery once", () =>
    Effect.gen(function*() {
      const { workspace } = yield* setup
      yield* createKey(workspace.id)
      yield* script(500)
      const deliveries = yield* WebhookDeliveries
      const [claimed] = yield* deliveries.claim(10)
      if (claimed === undefined) return assert.fail("nothing claimed")
      const sent = yield* deliveries.send(claimed)
      const [first] = yield* deliveries.record([sent])
      const [again] = yield* deliveries.record([sent])
      assert.strictEqual(again?.id, first?.id)
      const s = yield* state
      assert.deepStrictEqual(s.attempts.map((a) => a.id), [sent.id])
      assert.strictEqual(Array.from(s.deliveries.values())[0]?.attemptCount, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("410 Gone disables the endpoint and tells the workspace's other endpoints", () =>
    Effect.gen(function*() {
      const { workspace, endpoint } = yield* setup
      const other = yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: "https://other.example.com/h", eventTypes: ["webhook_endpoint.disabled"] })
      yield* script(410)
      yield* (yield* WebhookEndpoints).sendTest(ownerPrincipal(workspace.id), endpoint.id)
      yield* workerPass
      const gone = yield* (yield* WebhookEndpoints).get(ownerPrincipal(workspace.id), endpoint.id)
      assert.isFalse(gone.enabled)
      assert.deepStrictEqual(gone.disabledReason, Option.some("the endpoint answered 410 Gone"))
      const s = yield* state
      const notice = Array.from(s.deliveries.values()).filter((d) => d.eventType === "webhook_endpoint.disabled")
      assert.deepStrictEqual(notice.map((d) => d.endpointId), [other.endpoint.id])
      assert.isTrue(s.audit.some((a) => a.action === "webhook_endpoint.disabled" && a.target === endpoint.id))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("an endpoint failing continuously for five days is disabled", () =>
    Effect.gen(function*() {
      const { workspace, endpoint } = yield* setup
      yield* script(...Array.from({ length: 50 }, () => 500))
      for (let day = 0; day < 6; day++) {
        yield* (yield* WebhookEndpoints).sendTest(ownerPrincipal(workspace.id), endpoint.id).pipe(Effect.ignore)
        yield* workerPass
        yield* TestClock.adjust("1 day")
      }
      assert.isFalse((yield* (yield* WebhookEndpoints).get(ownerPrincipal(workspace.id), endpoint.id)).enabled)
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("webhook endpoints", () => {
  it.effect("rotation: both secrets sign during the grace period, only the new one after", () =>
    Effect.gen(function*() {
      const { workspace, endpoint, secret: oldSecret } = yield* setup
      const { secret: newSecret } = yield* (yield* WebhookEndpoints).rotateSecret(ownerPrincipal(workspace.id), endpoint.id, Duration.hours(1))
      // The public library computes the signature each secret must produce; the header must carry exactly those valid now.
      const signs = (secret: Redacted.Redacted<string>, request: { readonly body: string; readonly headers: Readonly<Record<string, string>> }) => {
        const id = request.headers["webhook-id"] ?? ""
        const timestamp = new Date(Number(request.headers["webhook-timestamp"]) * 1000)
        const expected = new Webhook(Redacted.value(secret).slice("whsec_".length)).sign(id, timestamp, request.body)
        return (request.headers["webhook-signature"] ?? "").split(" ").includes(expected)
      }
      yield* (yield* WebhookEndpoints).sendTest(ownerPrincipal(workspace.id), endpoint.id)
      yield* workerPass
      const [during] = yield* sentRequests
      assert.isDefined(during)
      if (during === undefined) return
      assert.strictEqual(during.headers["webhook-signature"]?.split(" ").length, 2)
      assert.isTrue(signs(oldSecret, during))
      assert.isTrue(signs(newSecret, during))
      yield* TestClock.adjust("61 minutes")
      yield* (yield* WebhookEndpoints).sendTest(ownerPrincipal(workspace.id), endpoint.id)
      yield* workerPass
      const after = (yield* sentRequests)[1]
      assert.isDefined(after)
      if (after === undefined) return
      assert.strictEqual(after.headers["webhook-signature"]?.split(" ").length, 1)
      assert.isFalse(signs(oldSecret, after))
      assert.isTrue(signs(newSecret, after))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("secrets are sealed at rest and appear in no event or audit entry", () =>
    Effect.gen(function*() {
      const { workspace, endpoint, secret } = yield* setup
      yield* (yield* WebhookEndpoints).rotateSecret(ownerPrincipal(workspace.id), endpoint.id, undefined)
      const s = yield* state
      const dump = JSON.stringify({ secrets: s.secrets, events: s.events, audit: s.audit, endpoints: Array.from(s.endpoints.values()) })
      assert.notInclude(dump, Redacted.value(secret))
      assert.notInclude(dump, "whsec_")
      assert.isTrue(s.secrets.every((stored) => stored.sealed.startsWith("v1.")))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("refuses blocked URLs, a grace period over 7 days, and a 21st endpoint", () =>
    Effect.gen(function*() {
      const { workspace, endpoint } = yield* setup
      const endpoints = yield* WebhookEndpoints
      const blocked = yield* endpoints.create(ownerPrincipal(workspace.id), { url: "https://blocked.example/x" }).pipe(Effect.flip)
      assert.strictEqual(blocked._tag, "InvalidInput")
      const plain = yield* endpoints.create(ownerPrincipal(workspace.id), { url: "http://hooks.example.com/x" }).pipe(Effect.flip)
      assert.strictEqual(plain._tag, "InvalidInput")
      const tooLong = yield* endpoints.rotateSecret(ownerPrincipal(workspace.id), endpoint.id, Duration.days(8)).pipe(Effect.flip)
      assert.strictEqual(tooLong._tag, "InvalidInput")
      for (let i = 1; i < 20; i++) yield* endpoints.create(ownerPrincipal(workspace.id), { url: `https://hooks.example.com/${i}` })
      const overLimit = yield* endpoints.create(ownerPrincipal(workspace.id), { url: "https://hooks.example.com/21" }).pipe(Effect.flip)
      assert.strictEqual(overLimit._tag, "Conflict")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the service asks the access policy itself: a plain member or a read-only key cannot manage endpoints", () =>
    Effect.gen(function*() {
      const { workspace, endpoint } = yield* setup
      const endpoints = yield* WebhookEndpoints
      const member = new SessionPrincipal({ ...ownerPrincipal(workspace.id), role: "member" })
      const admin = new SessionPrincipal({ ...ownerPrincipal(workspace.id), role: "admin" })
      const reader = new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_reader"), workspaceId: workspace.id, scopes: ["read"] })
      assert.strictEqual((yield* Effect.flip(endpoints.list(member, { limit: 10, cursor: undefined })))._tag, "Forbidden")
      assert.strictEqual((yield* Effect.flip(endpoints.create(member, { url: "https://hooks.example.com/m" })))._tag, "Forbidden")
      assert.strictEqual((yield* Effect.flip(endpoints.remove(reader, endpoint.id)))._tag, "InsufficientScope")
      assert.strictEqual((yield* endpoints.get(reader, endpoint.id)).id, endpoint.id)
      assert.strictEqual((yield* endpoints.update(admin, endpoint.id, { description: "by an admin" })).description, "by an admin")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("another workspace's endpoint and delivery ids are not found", () =>
    Effect.gen(function*() {
      const { workspace, endpoint } = yield* setup
      const other = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Other" })
      yield* createKey(workspace.id)
      const delivery = Array.from((yield* state).deliveries.values())[0]
      const endpoints = yield* WebhookEndpoints
      const tags = yield* Effect.all([
        Effect.flip(endpoints.get(ownerPrincipal(other.id), endpoint.id)),
        Effect.flip(endpoints.update(ownerPrincipal(other.id), endpoint.id, { description: "x" })),
        Effect.flip(endpoints.remove(ownerPrincipal(other.id), endpoint.id)),
        Effect.flip(endpoints.sendTest(ownerPrincipal(other.id), endpoint.id)),
        Effect.flip(endpoints.rotateSecret(ownerPrincipal(other.id), endpoint.id, undefined)),
        Effect.flip(endpoints.deliveries(ownerPrincipal(other.id), endpoint.id, undefined, { limit: 10, cursor: undefined }))
      ]).pipe(Effect.map((errors) => errors.map((e) => e._tag)))
      assert.deepStrictEqual(tags, Array.from({ length: 6 }, () => "NotFound"))
      if (delivery === undefined) return assert.fail("no delivery")
      assert.strictEqual((yield* Effect.flip(endpoints.delivery(ownerPrincipal(other.id), delivery.id)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(endpoints.replay(ownerPrincipal(other.id), delivery.id)))._tag, "NotFound")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("replay starts a new attempt chain with the same webhook-id; recover re-sends failures since a time", () =>
    Effect.gen(function*() {
      const { workspace, endpoint } = yield* setup
      yield* script(...Array.from({ length: 8 }, () => 500))
      yield* createKey(workspace.id)
      for (let attempt = 0; attempt < 8; attempt++) {
        yield* workerPass
        yield* TestClock.adjust(Duration.sum(retryDelays[attempt] ?? Duration.zero, Duration.hours(3)))
      }
      const failed = Array.from((yield* state).deliveries.values()).find((d) => d.status === "failed")
      if (failed === undefined) return assert.fail("no failed delivery")
      const endpoints = yield* WebhookEndpoints
      const replayed = yield* endpoints.replay(ownerPrincipal(workspace.id), failed.id)
      assert.notStrictEqual(replayed.id, failed.id)
      assert.strictEqual(replayed.eventId, failed.eventId)
      assert.deepStrictEqual(replayed.replayOf, Option.some(failed.id))
      yield* workerPass
      const requests = yield* sentRequests
      assert.strictEqual(requests.at(-1)?.headers["webhook-id"], failed.eventId)
      assert.strictEqual(requests.at(-2)?.headers["webhook-id"], failed.eventId)
      const now = yield* DateTime.now
      const recovered = yield* endpoints.recover(ownerPrincipal(workspace.id), endpoint.id, DateTime.subtract(now, { days: 3 }))
      assert.deepStrictEqual(recovered.map((d) => d.eventId), [failed.eventId])
      const tooOld = yield* endpoints.recover(ownerPrincipal(workspace.id), endpoint.id, DateTime.subtract(now, { days: 15 })).pipe(Effect.flip)
      assert.strictEqual(tooOld._tag, "InvalidInput")
    }).pipe(Effect.provide(Domain.layerMemory)))
})

