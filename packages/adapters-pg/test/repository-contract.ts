import {
  ApiKeyRepository,
  ApiKeys,
  AuditLog,
  Entitlement,
  EntitlementRepository,
  EventOutbox,
  Feature,
  type Page,
  type PageRequest,
  Transactor,
  WebhookDeliveries,
  WebhookEndpoints,
  WorkspaceId,
  WorkspaceRepository,
  Workspaces
} from "@atrium/domain"
import { deliverOne, Domain, ownerPrincipal, ScriptedReceiver, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer, Option, Ref } from "effect"
import type { Ports } from "../src/index.ts"
import { at, makeApiKey, makeAuditEntry, makeEvent, makeWorkspace } from "./fixtures.ts"

/** Walks every page of a list, following `nextCursor` until it is `null`. */
export const collectPages = <A, E, R>(list: (page: PageRequest) => Effect.Effect<Page<A>, E, R>, limit: number) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<A>> = []
    let cursor: string | undefined = undefined
    for (let guard = 0; guard < 100; guard++) {
      const page: Page<A> = yield* list({ limit, cursor })
      pages.push(page.data)
      if (page.nextCursor === null) return pages
      assert.match(page.nextCursor, /^[A-Za-z0-9_-]{1,200}$/)
      cursor = page.nextCursor
    }
    return assert.fail("pagination did not terminate")
  })

/** A fresh workspace, stored. */
export const seedWorkspace = Effect.gen(function*() {
  const workspace = makeWorkspace()
  yield* (yield* WorkspaceRepository).insert(workspace)
  return workspace
})

// The domain services over the ports under test, with an in-memory receiver standing in for the network.
const domain = Domain.layerOver(Layer.empty
)

// A failure the test provokes on purpose, to roll a transaction back.
class Boom {
  readonly _tag = "Boom"
}

/** The behaviour every implementation of the storage ports must show, run against one database target. */
export const repositoryContract = <E>(label: string, target: Layer.Layer<Ports, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`storage ports on ${label}`, (it) => {
    it.effect("inserts and finds workspaces by id and slug, and counts them", () =>
      Effect.gen(function*() {
        const repo = yield* WorkspaceRepository
        const before = yield* repo.count
        const workspace = yield* seedWorkspace
        assert.deepStrictEqual(yield* repo.findById(workspace.id), Option.some(workspace))
        assert.deepStrictEqual(yield* repo.findBySlug(workspace.slug), Option.some(workspace))
        assert.isTrue(Option.isNone(yield* repo.findById(WorkspaceId.make("ws_missing"))))
        assert.isAtLeast(yield* repo.count, before + 1)
      }))

    it.effect("a taken slug is a Conflict, and nothing is written", () =>
      Effect.gen(function*() {
        const repo = yield* WorkspaceRepository
        const workspace = yield* seedWorkspace
        const twin = makeWorkspace({ slug: workspace.slug })
        const error = yield* repo.insert(twin).pipe(Effect.flip)
        assert.strictEqual(error._tag, "Conflict")
        assert.isTrue(Option.isNone(yield* repo.findById(twin.id)))
      }))

    it.effect("API keys are found by digest, and by id only within their workspace", () =>
      Effect.gen(function*() {
        const keys = yield* ApiKeyRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const key = makeApiKey(workspace.id, { expiresAt: Option.some(at(3600)) })
        yield* keys.insert(key)
        assert.deepStrictEqual(yield* keys.findByDigest(key.digest), Option.some(key))
        assert.deepStrictEqual(yield* keys.findById(workspace.id, key.id), Option.some(key))
        assert.isTrue(Option.isNone(yield* keys.findById(other.id, key.id)))
        assert.isTrue(Option.isNone(yield* keys.findByDigest("no-such-digest")))
      }))

    it.effect("API keys list newest first, page by page, with tie-breaks on id and no duplicates", () =>
      Effect.gen(function*() {
        const repo = yield* ApiKeyRepository
        const workspace = yield* seedWorkspace
        const noise = yield* seedWorkspace
        // Two keys share a timestamp: the cursor must still split them exactly once.
        const created = [0, 10, 10, 20, 30, 40, 50].map((s) => makeApiKey(workspace.id, { createdAt: at(s) }))
        yield* Effect.forEach(created, repo.insert, { discard: true })
        yield* repo.insert(makeApiKey(noise.id, { createdAt: at(25) }))
        const pages = yield* collectPages((page) => repo.list(workspace.id, page), 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 2, 1])
        const listed = pages.flat()
        const expected = [...created].sort((a, b) =>
          DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.id < b.id ? 1 : -1)
        )
        assert.deepStrictEqual(listed.map((k) => k.id), expected.map((k) => k.id))
        const exact = yield* repo.list(workspace.id, { limit: 7, cursor: undefined })
        assert.strictEqual(exact.data.length, 7)
        assert.isNull(exact.nextCursor)
        // A cursor we never issued reads as "from the start" rather than failing.
        const garbage = yield* repo.list(workspace.id, { limit: 2, cursor: "not-a-cursor" })
        assert.deepStrictEqual(garbage.data.map((k) => k.id), expected.slice(0, 2).map((k) => k.id))
      }))

    it.effect("revoking is scoped to the workspace, idempotent, and keeps the first revocation time", () =>
      Effect.gen(function*() {
        const repo = yield* ApiKeyRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const key = makeApiKey(workspace.id)
        yield* repo.insert(key)
        assert.isTrue(Option.isNone(yield* repo.revoke(other.id, key.id, at(5))))
        assert.isTrue(Option.isNone((yield* repo.findByDigest(key.digest)).pipe(Option.flatMap((k) => k.revokedAt))))
        const first = yield* repo.revoke(workspace.id, key.id, at(10))
        assert.deepStrictEqual(Option.flatMap(first, (k) => k.revokedAt), Option.some(at(10)))
        const second = yield* repo.revoke(workspace.id, key.id, at(20))
        assert.deepStrictEqual(Option.flatMap(second, (k) => k.revokedAt), Option.some(at(10)))
        assert.deepStrictEqual(yield* repo.findByDigest(key.digest), second)
      }))

    it.effect("a roll marks the key once: replaced-by and the grace's expiry, never on a revoked, expired or rolled key", () =>
      Effect.gen(function*() {
        const repo = yield* ApiKeyRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const key = makeApiKey(workspace.id)
        const successor = makeApiKey(workspace.id)
        yield* repo.insert(key)
        assert.isTrue(Option.isNone(yield* repo.markRolled(other.id, key.id, successor.id, at(100), at(10))))
        const rolled = yield* repo.markRolled(workspace.id, key.id, successor.id, at(100), at(10))
        assert.deepStrictEqual(Option.map(rolled, (k) => [k.replacedBy, k.expiresAt]), Option.some([Option.some(successor.id), Option.some(at(100))]))
        assert.deepStrictEqual(yield* repo.findByDigest(key.digest), rolled)
        assert.isTrue(Option.isNone(yield* repo.markRolled(workspace.id, key.id, makeApiKey(workspace.id).id, at(200), at(20))))
        const revoked = makeApiKey(workspace.id, { revokedAt: Option.some(at(1)) })
        const expired = makeApiKey(workspace.id, { expiresAt: Option.some(at(5)) })
        yield* Effect.forEach([revoked, expired], repo.insert, { discard: true })
        assert.isTrue(Option.isNone(yield* repo.markRolled(workspace.id, revoked.id, successor.id, at(100), at(10))))
        assert.isTrue(Option.isNone(yield* repo.markRolled(workspace.id, expired.id, successor.id, at(100), at(10))))
      }))

    it.effect("concurrent rolls of one key through the service: exactly one wins, the others are Conflict and leave no key", () =>
      Effect.gen(function*() {
        const workspace = yield* seedWorkspace
        const keys = yield* ApiKeys
        const created = yield* keys.create(systemPrincipal(workspace.id), { name: "deploy", scopes: ["read"] })
        const results = yield* Effect.all(
          Array.from({ length: 5 }, () => keys.roll(systemPrincipal(workspace.id), { id: created.apiKey.id })),
          { concurrency: "unbounded", mode: "result" }
        )
        assert.strictEqual(results.filter((r) => r._tag === "Success").length, 1)
        assert.deepStrictEqual(results.flatMap((r) => r._tag === "Failure" ? [r.failure._tag] : []), ["Conflict", "Conflict", "Conflict", "Conflict"])
        const listed = yield* keys.list(systemPrincipal(workspace.id), { limit: 10, cursor: undefined })
        assert.strictEqual(listed.data.length, 2)
      }).pipe(Effect.provide(domain)))

    it.effect("last-used time is recorded and never moves backwards", () =>
      Effect.gen(function*() {
        const repo = yield* ApiKeyRepository
        const workspace = yield* seedWorkspace
        const key = makeApiKey(workspace.id)
        yield* repo.insert(key)
        const lastUsed = repo.findById(workspace.id, key.id).pipe(Effect.map(Option.flatMap((k) => k.lastUsedAt)))
        yield* repo.touchLastUsed(key.id, at(60))
        assert.deepStrictEqual(yield* lastUsed, Option.some(at(60)))
        yield* repo.touchLastUsed(key.id, at(30))
        assert.deepStrictEqual(yield* lastUsed, Option.some(at(60)))
        yield* repo.touchLastUsed(key.id, at(120))
        assert.deepStrictEqual(yield* lastUsed, Option.some(at(120)))
      }))

    it.effect("entitlement grants are per (feature, source, sourceRef): the same key replaces, other sources live beside it", () =>
      Effect.gen(function*() {
        const repo = yield* EntitlementRepository
        const workspace = yield* seedWorkspace
        const grant = (feature: string, source: Entitlement["source"], sourceRef: string, expiresAt: Option.Option<DateTime.Utc>) =>
          new Entitlement({ workspaceId: workspace.id, feature: Feature.make(feature), source, sourceRef, grantedAt: at(1), expiresAt })
        yield* repo.upsert(grant("ai.basic", "trial", "", Option.some(at(100))))
        yield* repo.upsert(grant("webhooks", "plan", "", Option.none()))
        yield* repo.upsert(grant("ai.basic", "purchase", "pur_a", Option.some(at(50))))
        const replaced = grant("ai.basic", "purchase", "pur_a", Option.some(at(70)))
        yield* repo.upsert(replaced)
        const second = grant("ai.basic", "purchase", "pur_b", Option.none())
        yield* repo.upsert(second)
        const listed = yield* repo.listByWorkspace(workspace.id)
        assert.deepStrictEqual(listed, [replaced, second, grant("ai.basic", "trial", "", Option.some(at(100))), grant("webhooks", "plan", "", Option.none())])
        assert.deepStrictEqual(yield* repo.listByWorkspace((yield* seedWorkspace).id), [])
      }))

    it.effect("the audit log and the outbox list newest first, by cursor, per workspace", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        const outbox = yield* EventOutbox
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const entries = [1, 2, 3, 4, 5].map((s) => makeAuditEntry(workspace.id, at(s)))
        const events = [1, 2, 3, 4, 5].map((s) => makeEvent(workspace.id, at(s)))
        yield* Effect.forEach(entries, audit.append, { discard: true })
        yield* Effect.forEach(events, outbox.append, { discard: true })
        yield* audit.append(makeAuditEntry(other.id, at(3)))
        yield* outbox.append(makeEvent(other.id, at(3)))
        const auditPages = yield* collectPages((page) => audit.list(workspace.id, page), 2)
        assert.deepStrictEqual(auditPages.flat(), [...entries].reverse())
        const eventPages = yield* collectPages((page) => outbox.list(workspace.id, page), 3)
        assert.deepStrictEqual(eventPages.map((p) => p.length), [3, 2])
        assert.deepStrictEqual(eventPages.flat(), [...events].reverse())
      }))

    it.effect("a failed transaction leaves neither the change nor its event (transactional outbox)", () =>
      Effect.gen(function*() {
        const tx = yield* Transactor
        const keys = yield* ApiKeyRepository
        const outbox = yield* EventOutbox
        const workspace = yield* seedWorkspace
        const key = makeApiKey(workspace.id)
        const event = makeEvent(workspace.id, at(1))
        const failed = yield* tx.withTransaction(
          Effect.gen(function*() {
            yield* keys.insert(key)
            yield* outbox.append(event)
            // Written and readable inside the transaction…
            assert.isTrue(Option.isSome(yield* keys.findById(workspace.id, key.id)))
            return yield* Effect.fail(new Boom())
          })
        ).pipe(Effect.flip)
        assert.instanceOf(failed, Boom)
        // …and gone after the rollback.
        assert.isTrue(Option.isNone(yield* keys.findByDigest(key.digest)))
        assert.deepStrictEqual((yield* outbox.list(workspace.id, { limit: 10, cursor: undefined })).data, [])

        // The same change commits as a whole, nested transactions joining the outer one.
        yield* tx.withTransaction(
          Effect.gen(function*() {
            yield* keys.insert(key)
            yield* tx.withTransaction(outbox.append(event))
          })
        )
        assert.isTrue(Option.isSome(yield* keys.findByDigest(key.digest)))
        assert.deepStrictEqual((yield* outbox.list(workspace.id, { limit: 10, cursor: undefined })).data, [event])
      }))

    it.effect("the domain services run end to end: create, authenticate, revoke, refuse, with events", () =>
      Effect.gen(function*() {
        const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme Corp" })
        const keys = yield* ApiKeys
        const { apiKey, plaintext } = yield* keys.create(systemPrincipal(workspace.id), { name: "ci", scopes: ["write"] })
        const principal = yield* keys.authenticate(plaintext)
        assert.strictEqual(principal.workspaceId, workspace.id)
        assert.deepStrictEqual(principal.scopes, ["write"])
        yield* keys.revoke(systemPrincipal(workspace.id), apiKey.id)
        const refused = yield* keys.authenticate(plaintext).pipe(Effect.flip)
        assert.strictEqual(refused._tag, "ApiKeyRejected")
        assert.strictEqual(refused.code, "api_key_revoked")
        const events = yield* (yield* EventOutbox).list(workspace.id, { limit: 10, cursor: undefined })
        assert.sameMembers(events.data.map((e) => e.type), ["api_key.created", "api_key.revoked"])
        assert.notInclude(JSON.stringify(events.data), apiKey.digest)
        const audit = yield* (yield* AuditLog).list(workspace.id, { limit: 10, cursor: undefined })
        assert.sameMembers(audit.data.map((e) => e.action), ["workspace.created", "api_key.created", "api_key.revoked"])
        const listed = yield* keys.list(systemPrincipal(workspace.id), { limit: 10, cursor: undefined })
        assert.deepStrictEqual(listed.data.map((k) => k.id), [apiKey.id])
      }).pipe(Effect.provide(domain)))

    it.effect("webhooks run end to end: a subscribed change enqueues a delivery that is claimed, signed, sent and recorded", () =>
      Effect.gen(function*() {
        const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Hooked" })
        const webhooks = yield* WebhookEndpoints
        const { endpoint } = yield* webhooks.create(ownerPrincipal(workspace.id), {
          url: "https://example.com/hooks",
          eventTypes: ["api_key.created"]
        })
        yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "ci" })
        const pending = yield* webhooks.deliveries(ownerPrincipal(workspace.id), endpoint.id, "pending", { limit: 10, cursor: undefined })
        assert.strictEqual(pending.data.length, 1)
        const [delivery] = pending.data
        if (delivery === undefined) return assert.fail("no delivery")
        assert.strictEqual(delivery.eventType, "api_key.created")

        const deliveries = yield* WebhookDeliveries
        // The queue is shared by the whole database: keep to this workspace's claims.
        const claimed = (yield* deliveries.claim(100)).filter((c) => c.delivery.workspaceId === workspace.id)
        assert.deepStrictEqual(claimed.map((c) => c.delivery.id), [delivery.id])
        const [claim] = claimed
        if (claim === undefined) return assert.fail("nothing claimed")
        assert.strictEqual(claim.event.type, "api_key.created")
        assert.strictEqual(claim.secrets.length, 1)
        const attempt = yield* deliverOne(claim)
        const [request] = yield* Ref.get((yield* ScriptedReceiver).requests)
        assert.strictEqual(request?.headers["webhook-id"], claim.event.id)
        assert.match(request?.headers["webhook-signature"] ?? "", /^v1,/)

        const stored = yield* webhooks.delivery(ownerPrincipal(workspace.id), delivery.id)
        assert.strictEqual(stored.delivery.status, "succeeded")
        assert.strictEqual(stored.delivery.attemptCount, 1)
        assert.isTrue(Option.isNone(stored.delivery.nextAttemptAt))
        assert.deepStrictEqual(stored.attempts, [attempt])
        assert.deepStrictEqual(attempt.statusCode, Option.some(204))
      }).pipe(Effect.provide(domain)))
  })
