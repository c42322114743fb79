import { assert, describe, it } from "@effect/vitest"
import { WebhookTransportNode } from "@atrium/adapters-webhook"
import {
  ApiKeys,
  type AttemptRecord,
  DeliveryRepository,
  type DeliveryPolicy,
  WebhookDeliveries,
  runWorker,
  type WorkerOptions,
  SecretBox,
  WebhookEndpoints,
  WebhookTransport,
  Workspaces
} from "@atrium/domain"
import { Domain, MemoryStore, ownerPrincipal, PortsMemory, runDueDeliveries, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { Duration, Effect, Exit, Latch, Layer, Option, Redacted, Ref, Scope } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { Webhook as SvixWebhook } from "svix"
import { type ReceivedRequest, receiver } from "./receiver.ts"

/** Sealed secrets opened so far by the box of `domainWith` (a real box, counted at its port). */
let secretsOpened = 0

// The real box under a random key, counting each `open` (a decrypt), so tests can see how often a pass opens secrets.
const countingSecretBox = Layer.effect(
  SecretBox,
  Effect.gen(function*() {
    const box = yield* SecretBox
    return SecretBox.of({ seal: box.seal, open: (sealed) => Effect.sync(() => secretsOpened++).pipe(Effect.andThen(box.open(sealed))) })
  })
).pipe(Layer.provide(SecretBox.layerMemory))

const nodeTransport = WebhookTransportNode.layerWith({ allowNetworks: ["127.0.0.0/8"] })

/** Opened whenever the delivery store recorded attempts: the only change `waitUntil`'s conditions wait for. */
const recorded = Latch.makeUnsafe(false)

// The ports, their delivery store opening `recorded` after each record (refused or not).
const signallingRecords = (ports: Layer.Layer<Layer.Success<typeof PortsMemory>>) =>
  Layer.effect(
    DeliveryRepository,
    Effect.map(DeliveryRepository, (store) =>
      DeliveryRepository.of({
        ...store,
        recordAttempt: (attempt, delivery) => store.recordAttempt(attempt, delivery).pipe(Effect.ensuring(recorded.open)),
        recordAttempts: (records) => store.recordAttempts(records).pipe(Effect.ensuring(recorded.open))
      }))
  ).pipe(Layer.provideMerge(ports))

/** The domain in memory, but with the real Node transport allowed to reach loopback receivers. */
const domainWith = (
  policy: Partial<DeliveryPolicy>,
  ports: Layer.Layer<Layer.Success<typeof PortsMemory>> = PortsMemory,
  transport: Layer.Layer<Layer.Success<typeof nodeTransport>, Layer.Error<typeof nodeTransport>> = nodeTransport
) =>
  Domain.layerOver(signallingRecords(ports), { delivery: policy, replace: Layer.merge(countingSecretBox, transport) })

/** The memory ports, but the delivery store refuses (dies on) any attempt whose response body says so, as Postgres refuses some text. */
const portsRefusing = (marker: string) =>
  Layer.effect(
    DeliveryRepository,
    Effect.map(DeliveryRepository, (store) => {
      const refuses = (record: AttemptRecord) => record.attempt.responseBody.includes(marker)
      return DeliveryRepository.of({
        ...store,
        recordAttempt: (attempt, delivery) => refuses({ attempt, delivery }) ? Effect.die(new Error("the store refuses")) : store.recordAttempt(attempt, delivery),
        recordAttempts: (records) => records.some(refuses) ? Effect.die(new Error("the store refuses")) : store.recordAttempts(records)
      })
    })
  ).pipe(Layer.provideMerge(PortsMemory))

/** The Node transport, but its first `send` dies (a bug while sending). */
const transportDyingOnce = Layer.effect(
  WebhookTransport,
  Effect.map(WebhookTransport, (transport) => {
    let sends = 0
    return WebhookTransport.of({
      ...transport,
      send: (request) => Effect.suspend(() => ++sends === 1 ? Effect.die(new Error("a bug while sending")) : transport.send(request))
    })
  })
).pipe(Layer.provideMerge(nodeTransport))

const fast = { retryDelays: [Duration.millis(200), Duration.millis(200), Duration.millis(200)], timeout: Duration.seconds(2) }

const headersOf = (request: ReceivedRequest): Record<string, string> =>
  Object.fromEntries(Object.entries(request.headers).flatMap(([name, value]) => typeof value === "string" ? [[name, value]] : []))

/** Until the store holds what `check` asks, checked again after each record (closed before each check, so none is missed). */
const waitUntil = <R>(check: Effect.Effect<boolean, never, R>, limit: Duration.Input = "10 seconds") =>
  Effect.gen(function*() {
    for (recorded.closeUnsafe(); !(yield* check); recorded.closeUnsafe()) yield* recorded.await
  }).pipe(Effect.timeout(limit))

/** The delivery queue on `runWorker`, as the app runs it. */
const deliveryWorker = (options: Partial<WorkerOptions>) =>
  Layer.effectDiscard(Effect.flatMap(WebhookDeliveries.queue, (queue) => runWorker(queue, options)))

/** Runs the worker in its own scope, so a test can stop it like a crashed or restarted process. */
const startWorker = Effect.fn(function*() {
  const scope = yield* Scope.make()
  yield* Layer.buildWithScope(deliveryWorker({ concurrency: 16, perKey: 2, idlePoll: "20 millis" }), scope)
  return scope
})

const state = Effect.gen(function*() {
  return yield* Ref.get((yield* MemoryStore).state)
})

describe("delivery worker over loopback", () => {
  it.live("a receiver failing twice then succeeding gets three signed attempts, verified by standardwebhooks and svix", () =>
    Effect.gen(function*() {
      let calls = 0
      const hook = yield* receiver((_request, response) => {
        calls++
        response.writeHead(calls <= 2 ? 500 : 200).end(calls <= 2 ? "not yet" : "ok")
      })
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const { secret } = yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: hook.url() })
      yield* startWorker()
      yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "k" })
      yield* waitUntil(Effect.map(state, (s) => Array.from(s.deliveries.values()).some((d) => d.status === "succeeded")))

      assert.strictEqual(hook.requests.length, 3)
      const ids = new Set(hook.requests.map((r) => r.headers["webhook-id"]))
      assert.strictEqual(ids.size, 1)
      for (const request of hook.requests) {
        const payload = new StandardWebhook(Redacted.value(secret).slice("whsec_".length)).verify(request.body, headersOf(request))
        assert.deepInclude(payload, { type: "api_key.created", workspaceId: workspace.id })
        assert.deepInclude(new SvixWebhook(Redacted.value(secret)).verify(request.body, {
          "svix-id": String(request.headers["webhook-id"]),
          "svix-timestamp": String(request.headers["webhook-timestamp"]),
          "svix-signature": String(request.headers["webhook-signature"])
        }), { type: "api_key.created" })
      }
      const attempts = (yield* state).attempts
      assert.deepStrictEqual(attempts.map((a) => a.statusCode._tag === "Some" ? a.statusCode.value : 0), [500, 500, 200])
      assert.deepStrictEqual(attempts.map((a) => a.number), [1, 2, 3])
      assert.isTrue(attempts.slice(0, 2).every((a) => a.responseBody === "not yet" && a.errorKind._tag === "Some"))
    }).pipe(Effect.provide(domainWith(fast))))

  it.live("a worker interrupted mid-delivery loses nothing: the delivery is sent again after restart", () =>
    Effect.gen(function*() {
      let calls = 0
      const hook = yield* receiver((_request, response) => {
        calls++
        // The first attempt hangs until the worker is stopped; the one after the restart succeeds.
        if (calls > 1) response.writeHead(204).end()
      })
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: hook.url() })
      yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "k" })
      const first = yield* startWorker()
      yield* Effect.promise(() => hook.requestArrived)
      yield* Scope.close(first, Exit.void)
      yield* Effect.promise(() => hook.firstSocketClosed).pipe(Effect.timeout("2 seconds"))
      assert.strictEqual((yield* state).attempts.length, 0)

      yield* startWorker()
      yield* waitUntil(Effect.map(state, (s) => Array.from(s.deliveries.values()).some((d) => d.status === "succeeded")))
      assert.strictEqual(hook.requests.length, 2)
      assert.strictEqual(hook.requests[0]?.headers["webhook-id"], hook.requests[1]?.headers["webhook-id"])
    }).pipe(Effect.provide(domainWith({ ...fast, lease: Duration.millis(500) }))))

  it.live("one slow endpoint never delays the others", () =>
    Effect.gen(function*() {
      const slow = yield* receiver(() => {
        // never answers: every attempt runs into the timeout
      })
      const quick = yield* receiver((_request, response) => response.writeHead(200).end())
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: slow.url() })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: quick.url() })
      yield* startWorker()
      for (let i = 0; i < 10; i++) yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: `k${i}` })
      const started = Date.now()
      yield* Effect.promise(() => quick.received(10)).pipe(Effect.timeout("3 seconds"))
      // All ten reached the fast endpoint well inside one attempt timeout of the slow one.
      assert.isBelow(Date.now() - started, 2_000)
    }).pipe(Effect.provide(domainWith({ ...fast, timeout: Duration.seconds(5) }))))
})

describe("a pass of deliveries", () => {
  it.live("opens each endpoint secret once per pass, however many of its deliveries the pass sends", () =>
    Effect.gen(function*() {
      const hook = yield* receiver((_request, response) => response.writeHead(204).end())
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const { secret } = yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: hook.url() })
      for (let i = 0; i < 6; i++) yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: `k${i}` })
      const before = secretsOpened
      const attempts = yield* runDueDeliveries(100)
      assert.strictEqual(attempts.length, 6)
      assert.strictEqual(secretsOpened - before, 1)
      // Every one of them is signed with that secret.
      assert.strictEqual(hook.requests.length, 6)
      for (const request of hook.requests) new StandardWebhook(Redacted.value(secret).slice("whsec_".length)).verify(request.body, headersOf(request))
      // With no window, the next pass opens it again.
      yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "later" })
      yield* runDueDeliveries(100)
      assert.strictEqual(secretsOpened - before, 2)
    }).pipe(Effect.provide(domainWith({ ...fast, openedSecretWindow: Duration.zero }))))

  it.live("the worker records every attempt exactly once, successes and failures alike, batched across passes", () =>
    Effect.gen(function*() {
      const good = yield* receiver((_request, response) => response.writeHead(204).end())
      const bad = yield* receiver((_request, response) => response.writeHead(500).end("down"))
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: good.url() })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: bad.url() })
      const before = secretsOpened
      yield* startWorker()
      for (let i = 0; i < 12; i++) yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: `k${i}` })
      // Four attempts each on the failing endpoint (the first and three retries), one each on the other.
      yield* waitUntil(Effect.map(state, (s) => Array.from(s.deliveries.values()).filter((d) => d.status !== "pending").length === 24))
      const s = yield* state
      assert.strictEqual(good.requests.length, 12)
      assert.strictEqual(bad.requests.length, 48)
      assert.strictEqual(s.attempts.length, 60)
      assert.strictEqual(new Set(s.attempts.map((a) => a.id)).size, 60)
      for (const delivery of s.deliveries.values()) {
        const numbers = s.attempts.filter((a) => a.deliveryId === delivery.id).map((a) => a.number).sort()
        assert.deepStrictEqual(numbers, delivery.status === "succeeded" ? [1] : [1, 2, 3, 4])
        assert.strictEqual(delivery.attemptCount, numbers.length)
      }
      // The failing endpoint's streak began with its first failure and was never ended.
      const endpoints = Array.from(s.endpoints.values()).filter((e) => e.workspaceId === workspace.id)
      assert.deepStrictEqual(endpoints.map((e) => e.failingSince._tag).sort(), ["None", "Some"])
      // One secret per endpoint, each opened once for every pass inside the window rather than once per attempt.
      assert.strictEqual(secretsOpened - before, 2)
    }).pipe(Effect.provide(domainWith({ ...fast, openedSecretWindow: Duration.minutes(1) }))))
})

describe("delivery worker resilience", () => {
  it.live("an attempt the store refuses to record is recorded without the receiver's answer body, and the worker goes on", () =>
    Effect.gen(function*() {
      const refused = yield* receiver((_request, response) => response.writeHead(200).end("refused by the store"))
      const fine = yield* receiver((_request, response) => response.writeHead(204).end())
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: refused.url() })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: fine.url() })
      yield* startWorker()
      for (let i = 0; i < 3; i++) yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: `k${i}` })
      yield* waitUntil(Effect.map(state, (s) => Array.from(s.deliveries.values()).filter((d) => d.status === "succeeded").length === 6))
      const s = yield* state
      // Each delivery was sent once and recorded once, the refused ones with their status but without the body.
      assert.strictEqual(refused.requests.length, 3)
      assert.strictEqual(fine.requests.length, 3)
      assert.strictEqual(s.attempts.length, 6)
      const toRefused = s.attempts.filter((a) => a.statusCode._tag === "Some" && a.statusCode.value === 200)
      assert.strictEqual(toRefused.length, 3)
      for (const attempt of toRefused) assert.deepStrictEqual([attempt.responseBody, attempt.responseHeaders], ["", {}])
    }).pipe(Effect.provide(domainWith(fast, portsRefusing("refused by the store")))))

  it.live("a send that dies is recorded as a failed attempt without an answer, and the delivery is retried on the schedule", () =>
    Effect.gen(function*() {
      const hook = yield* receiver((_request, response) => response.writeHead(204).end())
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: hook.url() })
      yield* startWorker()
      yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "k" })
      yield* waitUntil(Effect.map(state, (s) => Array.from(s.deliveries.values()).some((d) => d.status === "succeeded")))
      const attempts = (yield* state).attempts
      assert.deepStrictEqual(attempts.map((a) => [a.number, Option.getOrNull(a.statusCode), Option.getOrNull(a.errorKind)]), [
        [1, null, "network"],
        [2, 204, null]
      ])
      assert.strictEqual(hook.requests.length, 1)
    }).pipe(Effect.provide(domainWith(fast, PortsMemory, transportDyingOnce))))

  it.live("a pass that dies does not end the worker: it backs off and polls again", () =>
    Effect.gen(function*() {
      let claims = 0
      const thirdClaim = Latch.makeUnsafe(false)
      // The worker is under test here, so the queue it polls is a stand-in that dies on its first claim.
      const queue = Layer.succeed(WebhookDeliveries, WebhookDeliveries.of({
        claim: () => Effect.suspend(() => ++claims === 1 ? Effect.die(new Error("boom")) : Effect.as(claims >= 3 ? thirdClaim.open : Effect.void, [])),
        send: () => Effect.die(new Error("unused")),
        record: () => Effect.die(new Error("unused")),
        recordDefect: () => Effect.die(new Error("unused"))
      }))
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(
        deliveryWorker({ concurrency: 4, perKey: 1, idlePoll: "20 millis", failureBackoff: "50 millis" }).pipe(Layer.provide(queue)),
        scope
      )
      yield* thirdClaim.await.pipe(Effect.timeout("5 seconds"))
      yield* Scope.close(scope, Exit.void)
      assert.isAtLeast(claims, 3)
    }))
})
