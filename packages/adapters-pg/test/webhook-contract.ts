import { DeliveryRepository, type DeliveryStatus, type DomainEvent, EndpointSecret, EventOutbox, WebhookDelivery, WebhookEndpoint, WebhookEndpointRepository } from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Option } from "effect"
import type { Ports } from "../src/index.ts"
import { at, makeAttempt, makeDelivery, makeEndpoint, makeEvent, makeSecret } from "./fixtures.ts"
import { collectPages, seedWorkspace } from "./repository-contract.ts"

const newestFirst = <A extends { readonly createdAt: DateTime.Utc; readonly id: string }>(items: ReadonlyArray<A>) =>
  [...items].sort((a, b) => DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.id < b.id ? 1 : -1))

const seedEndpoint = (endpoint: WebhookEndpoint) => WebhookEndpointRepository.pipe(Effect.flatMap((repo) => repo.insert(endpoint)), Effect.as(endpoint))

const seedEvent = (event: DomainEvent) => EventOutbox.pipe(Effect.flatMap((outbox) => outbox.append(event)), Effect.as(event))

const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

/** The webhook ports (endpoints, secrets, the delivery queue and its attempts) against one database target. */
export const webhookContract = <E>(label: string, target: Layer.Layer<Ports, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`webhook ports on ${label}`, (it) => {
    it.effect("endpoints are stored, updated, listed by cursor and counted, each within its workspace", () =>
      Effect.gen(function*() {
        const repo = yield* WebhookEndpointRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        // Two endpoints share a timestamp: the cursor must still split them exactly once.
        const created = [1, 2, 2, 3, 4].map((s) => makeEndpoint(workspace.id, { createdAt: at(s), updatedAt: at(s) }))
        yield* Effect.forEach(created, seedEndpoint, { discard: true })
        yield* seedEndpoint(makeEndpoint(other.id, { createdAt: at(3) }))
        const first = created[0]
        if (first === undefined) return assert.fail("no endpoint")
        assert.deepStrictEqual(yield* repo.findById(workspace.id, first.id), Option.some(first))
        assert.isTrue(Option.isNone(yield* repo.findById(other.id, first.id)))
        assert.strictEqual(yield* repo.count(workspace.id), 5)
        const pages = yield* collectPages((page) => repo.list(workspace.id, page), 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
        assert.deepStrictEqual(ids(pages.flat()), ids(newestFirst(created)))

        const updated = new WebhookEndpoint({
          ...first,
          url: "https://example.org/other",
          description: "billing",
          eventTypes: Option.some(["api_key.created", "member.joined"]),
          enabled: false,
          disabledReason: Option.some("failing continuously"),
          failingSince: Option.some(at(50)),
          updatedAt: at(60)
        })
        yield* repo.update(updated)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, first.id), Option.some(updated))
        // An empty subscription list round-trips as empty (subscribed to nothing), not as NULL (everything).
        const none = new WebhookEndpoint({ ...updated, eventTypes: Option.some([]), failingSince: Option.none(), disabledReason: Option.none() })
        yield* repo.update(none)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, first.id), Option.some(none))
      }))

    it.effect("listSubscribed returns the enabled endpoints subscribed to the type or to every type", () =>
      Effect.gen(function*() {
        const repo = yield* WebhookEndpointRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const all = yield* seedEndpoint(makeEndpoint(workspace.id, { createdAt: at(1) }))
        const keys = yield* seedEndpoint(makeEndpoint(workspace.id, { createdAt: at(2), eventTypes: Option.some(["api_key.created", "api_key.revoked"]) }))
        const members = yield* seedEndpoint(makeEndpoint(workspace.id, { createdAt: at(3), eventTypes: Option.some(["member.joined"]) }))
        yield* seedEndpoint(makeEndpoint(workspace.id, { createdAt: at(4), eventTypes: Option.some([]) }))
        yield* seedEndpoint(makeEndpoint(workspace.id, { createdAt: at(5), enabled: false, disabledReason: Option.some("by a person") }))
        yield* seedEndpoint(makeEndpoint(other.id, { createdAt: at(1) }))
        assert.sameMembers(ids(yield* repo.listSubscribed(workspace.id, "api_key.created")), [all.id, keys.id])
        assert.sameMembers(ids(yield* repo.listSubscribed(workspace.id, "member.joined")), [all.id, members.id])
        assert.sameMembers(ids(yield* repo.listSubscribed(workspace.id, "webhook.test")), [all.id])
        assert.deepStrictEqual(yield* repo.listSubscribed((yield* seedWorkspace).id, "api_key.created"), [])
      }))

    it.effect("secrets list newest first, and expiring them only ever brings an end closer", () =>
      Effect.gen(function*() {
        const repo = yield* WebhookEndpointRepository
        const workspace = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const neighbour = yield* seedEndpoint(makeEndpoint(workspace.id))
        const oldest = makeSecret(endpoint.id, at(0))
        const rotated = makeSecret(endpoint.id, at(10), Option.some(at(500)))
        const soon = makeSecret(endpoint.id, at(20), Option.some(at(50)))
        // Same instant as `soon` (a rotation under a frozen clock): the later insert is the newer secret.
        const newest = makeSecret(endpoint.id, at(20))
        const untouched = makeSecret(neighbour.id, at(0))
        yield* Effect.forEach([oldest, rotated, soon, newest, untouched], repo.addSecret, { discard: true })
        assert.deepStrictEqual(yield* repo.secrets(endpoint.id), [newest, soon, rotated, oldest])
        yield* repo.expireSecrets(endpoint.id, at(100))
        const expiring = (secret: EndpointSecret, expiresAt: Option.Option<DateTime.Utc>) => new EndpointSecret({ ...secret, expiresAt })
        assert.deepStrictEqual(yield* repo.secrets(endpoint.id), [
          expiring(newest, Option.some(at(100))),
          soon,
          expiring(rotated, Option.some(at(100))),
          expiring(oldest, Option.some(at(100)))
        ])
        assert.deepStrictEqual(yield* repo.secrets(neighbour.id), [untouched])
      }))

    it.effect("deleting an endpoint takes its secrets, deliveries and attempts, and only in its workspace", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const deliveries = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const kept = yield* seedEndpoint(makeEndpoint(workspace.id))
        yield* endpoints.addSecret(makeSecret(endpoint.id, at(0)))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const delivery = makeDelivery(event, endpoint.id)
        const keptDelivery = makeDelivery(event, kept.id)
        yield* deliveries.insertMany([delivery, keptDelivery])
        yield* deliveries.recordAttempt(makeAttempt(delivery.id, 1), delivery)

        assert.isFalse(yield* endpoints.delete(other.id, endpoint.id))
        assert.isTrue(Option.isSome(yield* endpoints.findById(workspace.id, endpoint.id)))
        assert.isTrue(yield* endpoints.delete(workspace.id, endpoint.id))
        assert.isTrue(Option.isNone(yield* endpoints.findById(workspace.id, endpoint.id)))
        assert.deepStrictEqual(yield* endpoints.secrets(endpoint.id), [])
        assert.isTrue(Option.isNone(yield* deliveries.findById(workspace.id, delivery.id)))
        assert.deepStrictEqual(yield* deliveries.attempts(delivery.id), [])
        assert.isFalse(yield* endpoints.delete(workspace.id, endpoint.id))
        assert.deepStrictEqual(yield* deliveries.findById(workspace.id, keptDelivery.id), Option.some(keptDelivery))
      }))

    it.effect("deliveries are inserted together, found within their workspace, and listed by endpoint, status and cursor", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const neighbour = yield* seedEndpoint(makeEndpoint(workspace.id))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const statuses: ReadonlyArray<DeliveryStatus> = ["pending", "failed", "succeeded", "failed", "pending", "failed", "succeeded"]
        const seconds = [1, 2, 2, 3, 4, 5, 6]
        const created = statuses.map((status, index) =>
          makeDelivery(event, endpoint.id, {
            status,
            createdAt: at(seconds[index] ?? 0),
            nextAttemptAt: status === "pending" ? Option.some(at(10_000_000)) : Option.none(),
            lastStatusCode: status === "pending" ? Option.none() : Option.some(status === "failed" ? 503 : 200),
            attemptCount: status === "pending" ? 0 : 3
          })
        )
        // A replay points at the delivery it repeats; it lives on another endpoint here, so it is not listed below.
        const replay = makeDelivery(event, neighbour.id, { replayOf: Option.fromNullishOr(created[1]?.id) })
        yield* repo.insertMany([])
        yield* repo.insertMany([...created, replay])
        for (const delivery of [...created, replay]) {
          assert.deepStrictEqual(yield* repo.findById(workspace.id, delivery.id), Option.some(delivery))
          assert.isTrue(Option.isNone(yield* repo.findById(other.id, delivery.id)))
        }
        const all = yield* collectPages((page) => repo.listByEndpoint(workspace.id, endpoint.id, undefined, page), 3)
        assert.deepStrictEqual(all.map((p) => p.length), [3, 3, 1])
        assert.deepStrictEqual(ids(all.flat()), ids(newestFirst(created)))
        const failed = yield* collectPages((page) => repo.listByEndpoint(workspace.id, endpoint.id, "failed", page), 2)
        assert.deepStrictEqual(failed.map((p) => p.length), [2, 1])
        assert.deepStrictEqual(ids(failed.flat()), ids(newestFirst(created.filter((d) => d.status === "failed"))))
        const elsewhere = yield* repo.listByEndpoint(other.id, endpoint.id, undefined, { limit: 10, cursor: undefined })
        assert.deepStrictEqual(elsewhere, { data: [], nextCursor: null })
      }))

    // The queue is global, so each queue test works in its own stretch of time and fails what it leaves pending.
    it.effect("claimDue hands out due, pending deliveries of enabled endpoints, oldest first, and leases them", () =>
      Effect.gen(function*() {
        const endpoints = yield* WebhookEndpointRepository
        const repo = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const enabled = yield* seedEndpoint(makeEndpoint(workspace.id, { eventTypes: Option.some(["entitlement.granted"]) }))
        const disabled = yield* seedEndpoint(makeEndpoint(workspace.id, { enabled: false, disabledReason: Option.some("by a person") }))
        const older = makeSecret(enabled.id, at(0))
        const newer = makeSecret(enabled.id, at(5))
        yield* Effect.forEach([older, newer], endpoints.addSecret, { discard: true })
        const first = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const second = yield* seedEvent(makeEvent(workspace.id, at(2)))
        const dueLater = makeDelivery(first, enabled.id, { nextAttemptAt: Option.some(at(100)) })
        const dueEarlier = makeDelivery(second, enabled.id, { nextAttemptAt: Option.some(at(50)) })
        const notYetDue = makeDelivery(first, enabled.id, { nextAttemptAt: Option.some(at(500)) })
        const done = makeDelivery(first, enabled.id, { status: "succeeded", nextAttemptAt: Option.none(), attemptCount: 1 })
        const given = makeDelivery(first, enabled.id, { status: "failed", nextAttemptAt: Option.some(at(10)), attemptCount: 8 })
        const toDisabled = makeDelivery(first, disabled.id, { nextAttemptAt: Option.some(at(10)) })
        yield* repo.insertMany([dueLater, dueEarlier, notYetDue, done, given, toDisabled])

        const claimed = yield* repo.claimDue(at(200), 10, at(260))
        assert.deepStrictEqual(claimed.map((c) => c.delivery), [dueEarlier, dueLater])
        assert.deepStrictEqual(claimed.map((c) => c.event), [second, first])
        assert.deepStrictEqual(claimed.map((c) => c.endpoint), [enabled, enabled])
        assert.deepStrictEqual(claimed.map((c) => c.secrets), [[newer, older], [newer, older]])
        // Leased: the stored rows wait until the lease ends, so a second claim now finds nothing.
        const leased = yield* repo.findById(workspace.id, dueLater.id)
        assert.deepStrictEqual(Option.flatMap(leased, (d) => d.nextAttemptAt), Option.some(at(260)))
        assert.deepStrictEqual(yield* repo.claimDue(at(200), 10, at(260)), [])
        assert.deepStrictEqual(yield* repo.claimDue(at(259), 10, at(320)), [])
        assert.deepStrictEqual(yield* repo.claimDue(at(260), 0, at(320)), [])

        // A worker that crashed never records its attempts: the deliveries come back when the lease runs out.
        const recovered = yield* repo.claimDue(at(260), 1, at(320))
        assert.strictEqual(recovered.length, 1)
        const rest = yield* repo.claimDue(at(260), 10, at(320))
        assert.sameMembers(ids([...recovered, ...rest].map((c) => c.delivery)), [dueEarlier.id, dueLater.id])
        assert.deepStrictEqual([...recovered, ...rest].map((c) => c.delivery.nextAttemptAt), [Option.some(at(260)), Option.some(at(260))])

        yield* repo.failPending(enabled.id, at(600))
        yield* repo.failPending(disabled.id, at(600))
        assert.deepStrictEqual(yield* repo.claimDue(at(100_000), 100, at(100_060)), [])
      }))

    it.effect("concurrent claims hand every due delivery to exactly one claimer", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1000)))
        // Ten deliveries share each due time, so ties are contended too.
        const due = Array.from({ length: 200 }, (_, index) => makeDelivery(event, endpoint.id, { nextAttemptAt: Option.some(at(1000 + (index % 20))) }))
        yield* repo.insertMany(due)
        const rounds = yield* Effect.forEach(
          Array.from({ length: 8 }, () => at(2000)),
          (now) => repo.claimDue(now, 30, at(2060)),
          { concurrency: "unbounded" }
        )
        const claimed = rounds.flat().map((c) => c.delivery.id)
        assert.strictEqual(new Set(claimed).size, claimed.length, "a delivery was claimed twice")
        for (const round of rounds) assert.isAtMost(round.length, 30)
        // Whatever the concurrent round left (claimers skip rows others hold) is still claimable, once.
        const leftover = (yield* repo.claimDue(at(2000), 200, at(2060))).map((c) => c.delivery.id)
        assert.sameMembers([...claimed, ...leftover], ids(due))
        assert.deepStrictEqual(yield* repo.claimDue(at(2000), 200, at(2060)), [])
        yield* repo.failPending(endpoint.id, at(3000))
      }))

    it.effect("recordAttempt stores the attempt with the delivery's new state; attempts list first to last", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const delivery = makeDelivery(event, endpoint.id)
        yield* repo.insertMany([delivery])
        const failedAttempt = makeAttempt(delivery.id, 1)
        const retrying = new WebhookDelivery({
          ...delivery,
          attemptCount: 1,
          nextAttemptAt: failedAttempt.nextAttemptAt,
          lastStatusCode: Option.some(500),
          updatedAt: at(61)
        })
        yield* repo.recordAttempt(failedAttempt, retrying)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, delivery.id), Option.some(retrying))
        const delivered = makeAttempt(delivery.id, 2, {
          statusCode: Option.some(204),
          errorKind: Option.none(),
          responseHeaders: {},
          responseBody: "",
          nextAttemptAt: Option.none()
        })
        const timedOut = makeAttempt(delivery.id, 0, { statusCode: Option.none(), errorKind: Option.some("timeout"), remoteAddress: Option.none() })
        const succeeded = new WebhookDelivery({
          ...retrying,
          status: "succeeded",
          attemptCount: 2,
          nextAttemptAt: Option.none(),
          lastStatusCode: Option.some(204),
          updatedAt: at(121)
        })
        yield* repo.recordAttempt(delivered, succeeded)
        yield* repo.recordAttempt(timedOut, succeeded)
        assert.deepStrictEqual(yield* repo.attempts(delivery.id), [timedOut, failedAttempt, delivered])
        assert.deepStrictEqual(yield* repo.findById(workspace.id, delivery.id), Option.some(succeeded))
      }))

    it.effect("recordAttempts stores many attempts at once and ends the failing streak of endpoints with a success only", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const endpoints = yield* WebhookEndpointRepository
        const workspace = yield* seedWorkspace
        const healed = yield* seedEndpoint(makeEndpoint(workspace.id, { failingSince: Option.some(at(5)) }))
        const stillFailing = yield* seedEndpoint(makeEndpoint(workspace.id, { failingSince: Option.some(at(5)) }))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const [first, second, third] = [makeDelivery(event, healed.id), makeDelivery(event, healed.id), makeDelivery(event, stillFailing.id)]
        if (first === undefined || second === undefined || third === undefined) return assert.fail("no deliveries")
        yield* repo.insertMany([first, second, third])
        const ok = (delivery: WebhookDelivery, seconds: number) => ({
          attempt: makeAttempt(delivery.id, 1, {
            statusCode: Option.some(204),
            errorKind: Option.none(),
            responseHeaders: { "content-type": "text/plain; charset=\"utf-8\"" },
            responseBody: "ok \u00e9 ' \\",
            nextAttemptAt: Option.none()
          }),
          delivery: new WebhookDelivery({ ...delivery, status: "succeeded", attemptCount: 1, nextAttemptAt: Option.none(), lastStatusCode: Option.some(204), updatedAt: at(seconds) })
        })
        const retry = {
          attempt: makeAttempt(third.id, 1),
          delivery: new WebhookDelivery({ ...third, attemptCount: 1, nextAttemptAt: Option.some(at(65)), lastStatusCode: Option.some(500), updatedAt: at(60) })
        }
        const records = [ok(first, 60), ok(second, 70), retry]
        yield* repo.recordAttempts(records)
        yield* repo.recordAttempts([])
        for (const record of records) {
          assert.deepStrictEqual(yield* repo.findById(workspace.id, record.delivery.id), Option.some(record.delivery))
          assert.deepStrictEqual(yield* repo.attempts(record.delivery.id), [record.attempt])
        }
        assert.deepStrictEqual(yield* endpoints.findById(workspace.id, healed.id), Option.some(new WebhookEndpoint({ ...healed, failingSince: Option.none(), updatedAt: at(70) })))
        assert.deepStrictEqual(yield* endpoints.findById(workspace.id, stillFailing.id), Option.some(stillFailing))
      }))

    it.effect("recordAttempts stores an attempt once however often it is written, and moves a delivery only from the state it was judged on", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const delivery = makeDelivery(event, endpoint.id)
        yield* repo.insertMany([delivery])
        const first = {
          attempt: makeAttempt(delivery.id, 1),
          delivery: new WebhookDelivery({ ...delivery, attemptCount: 1, nextAttemptAt: Option.some(at(65)), lastStatusCode: Option.some(500), updatedAt: at(60) })
        }
        yield* repo.recordAttempts([first])
        // The same write again (a retried statement) stores nothing twice.
        yield* repo.recordAttempts([first])
        assert.deepStrictEqual(yield* repo.attempts(delivery.id), [first.attempt])
        // A worker whose lease ran out judged the same claim: its attempt is kept, but the delivery does not move again.
        const stale = {
          attempt: makeAttempt(delivery.id, 1, { startedAt: at(61) }),
          delivery: new WebhookDelivery({ ...delivery, status: "succeeded", attemptCount: 1, nextAttemptAt: Option.none(), lastStatusCode: Option.some(204), updatedAt: at(62) })
        }
        yield* repo.recordAttempts([stale])
        assert.deepStrictEqual(yield* repo.findById(workspace.id, delivery.id), Option.some(first.delivery))
        assert.deepStrictEqual(yield* repo.attempts(delivery.id), [first.attempt, stale.attempt])
      }))

    it.effect("recordAttempts starts a failing streak at an endpoint's earliest failed attempt, and keeps a streak already running", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const endpoints = yield* WebhookEndpointRepository
        const workspace = yield* seedWorkspace
        const healthy = yield* seedEndpoint(makeEndpoint(workspace.id))
        const failing = yield* seedEndpoint(makeEndpoint(workspace.id, { failingSince: Option.some(at(5)) }))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const deliveries = [makeDelivery(event, healthy.id), makeDelivery(event, healthy.id), makeDelivery(event, failing.id)]
        yield* repo.insertMany(deliveries)
        const failed = (delivery: WebhookDelivery, seconds: number) => ({
          attempt: makeAttempt(delivery.id, 1, { startedAt: at(seconds) }),
          delivery: new WebhookDelivery({ ...delivery, attemptCount: 1, nextAttemptAt: Option.some(at(seconds + 5)), lastStatusCode: Option.some(500), updatedAt: at(seconds + 1) })
        })
        const [a, b, c] = deliveries
        if (a === undefined || b === undefined || c === undefined) return assert.fail("no deliveries")
        yield* repo.recordAttempts([failed(a, 80), failed(b, 70), failed(c, 90)])
        assert.deepStrictEqual(
          yield* endpoints.findById(workspace.id, healthy.id),
          Option.some(new WebhookEndpoint({ ...healthy, failingSince: Option.some(at(70)), updatedAt: at(81) }))
        )
        assert.deepStrictEqual(yield* endpoints.findById(workspace.id, failing.id), Option.some(failing))
      }))

    it.effect("failedSince lists an endpoint's failed deliveries created at or after the time, within the workspace", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const neighbour = yield* seedEndpoint(makeEndpoint(workspace.id))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const failed = (endpointId: typeof endpoint.id, seconds: number) =>
          makeDelivery(event, endpointId, { status: "failed", nextAttemptAt: Option.none(), createdAt: at(seconds) })
        const tooOld = failed(endpoint.id, 99)
        const onTheDot = failed(endpoint.id, 100)
        const later = failed(endpoint.id, 150)
        const pending = makeDelivery(event, endpoint.id, { createdAt: at(120) })
        const succeeded = makeDelivery(event, endpoint.id, { status: "succeeded", nextAttemptAt: Option.none(), createdAt: at(130) })
        const elsewhere = failed(neighbour.id, 140)
        yield* repo.insertMany([tooOld, onTheDot, later, pending, succeeded, elsewhere])
        assert.sameMembers(ids(yield* repo.failedSince(workspace.id, endpoint.id, at(100))), [onTheDot.id, later.id])
        assert.deepStrictEqual(yield* repo.failedSince(other.id, endpoint.id, at(0)), [])
        assert.deepStrictEqual(yield* repo.failedSince(workspace.id, endpoint.id, at(151)), [])
      }))

    it.effect("failPending fails the endpoint's pending deliveries, clearing their next attempt, and nothing else", () =>
      Effect.gen(function*() {
        const repo = yield* DeliveryRepository
        const workspace = yield* seedWorkspace
        const endpoint = yield* seedEndpoint(makeEndpoint(workspace.id))
        const neighbour = yield* seedEndpoint(makeEndpoint(workspace.id))
        const event = yield* seedEvent(makeEvent(workspace.id, at(1)))
        const pending = makeDelivery(event, endpoint.id)
        const succeeded = makeDelivery(event, endpoint.id, { status: "succeeded", nextAttemptAt: Option.none(), attemptCount: 1 })
        const neighbours = makeDelivery(event, neighbour.id)
        yield* repo.insertMany([pending, succeeded, neighbours])
        yield* repo.failPending(endpoint.id, at(900))
        const find = (id: typeof pending.id) => repo.findById(workspace.id, id)
        assert.deepStrictEqual(
          yield* find(pending.id),
          Option.some(new WebhookDelivery({ ...pending, status: "failed", nextAttemptAt: Option.none(), updatedAt: at(900) }))
        )
        assert.deepStrictEqual(yield* find(succeeded.id), Option.some(succeeded))
        assert.deepStrictEqual(yield* find(neighbours.id), Option.some(neighbours))
      }))
  })
