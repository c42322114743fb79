import {
  AppAccountToken,
  BillingRepository,
  NotificationInbox,
  Purchase,
  PurchaseId,
  PurchaseRepository,
  StoreNotification,
  StoreNotificationId,
  Transactor,
  UserId,
  type WorkspaceId,
  WorkspaceRepository
} from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { collectPages } from "./repository-contract.ts"
import { at, makeWorkspace, token } from "./fixtures.ts"

/** The ports the purchase contract exercises. */
export type PurchasePorts = PurchaseRepository | NotificationInbox | BillingRepository | WorkspaceRepository | Transactor

const seedWorkspace = Effect.gen(function*() {
  const workspace = makeWorkspace()
  yield* (yield* WorkspaceRepository).insert(workspace)
  return workspace.id
})

export const makePurchase = (workspaceId: WorkspaceId, overrides: Partial<Purchase> = {}): Purchase =>
  new Purchase({
    id: PurchaseId.make(`pur_${token()}`),
    workspaceId,
    userId: UserId.make("usr_buyer"),
    store: "app_store",
    environment: "production",
    productId: "pro.monthly",
    kind: "subscription",
    storeRef: `orig-${token()}`,
    sealedToken: Option.none(),
    status: "pending",
    autoRenew: false,
    expiresAt: Option.none(),
    latestTransactionId: "t-1",
    lastEventAt: at(0),
    lastVerifiedAt: Option.none(),
    acknowledgedAt: Option.none(),
    ackAttempts: 0,
    nextCheckAt: Option.none(),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides
  })

export const makeNotification = (externalId: string, overrides: Partial<StoreNotification> = {}) =>
  new StoreNotification({
    id: StoreNotificationId.make(`sn_${token()}`),
    source: "apple",
    externalId,
    sealedBody: "v1.aaaa.bbbb",
    workspaceId: Option.none(),
    userId: Option.none(),
    receivedAt: at(0),
    attempts: 0,
    nextAttemptAt: Option.some(at(0)),
    processedAt: Option.none(),
    outcome: Option.none(),
    ...overrides
  })

/** What every implementation of the purchase ports must do (run against memory and Postgres). */
export const purchaseContract = <E>(label: string, target: Layer.Layer<PurchasePorts, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`purchase ports on ${label}`, (it) => {
    it.effect("lockOrInsert inserts once per (store, storeRef); the stored row wins, whatever workspace asks", () =>
      Effect.gen(function*() {
        const repo = yield* PurchaseRepository
        const a = yield* seedWorkspace
        const b = yield* seedWorkspace
        const first = makePurchase(a)
        assert.deepStrictEqual(yield* repo.lockOrInsert(first), { purchase: first, inserted: true })
        const rival = makePurchase(b, { storeRef: first.storeRef })
        const second = yield* repo.lockOrInsert(rival)
        assert.isFalse(second.inserted)
        assert.strictEqual(second.purchase.id, first.id)
        assert.strictEqual(second.purchase.workspaceId, a)
        // The same reference in the other store is another purchase.
        assert.isTrue((yield* repo.lockOrInsert(makePurchase(a, { store: "play_store", storeRef: first.storeRef }))).inserted)
        const saved = new Purchase({ ...first, status: "active", productId: "pro.yearly", expiresAt: Option.some(at(100)), sealedToken: Option.some("v1.x.y"), ackAttempts: 2 })
        yield* repo.save(saved)
        assert.deepStrictEqual(yield* repo.findById(a, first.id), Option.some(saved))
        assert.deepStrictEqual(yield* repo.findById(b, first.id), Option.none())
        assert.deepStrictEqual(yield* repo.findByStoreRef("app_store", first.storeRef), Option.some(saved))
      }))

    it.effect("concurrent lockOrInsert of one purchase in transactions yields one row", () =>
      Effect.gen(function*() {
        const repo = yield* PurchaseRepository
        const tx = yield* Transactor
        const ws = yield* seedWorkspace
        const storeRef = `race-${token()}`
        const results = yield* Effect.all(
          Array.from({ length: 6 }, () => tx.withTransaction(repo.lockOrInsert(makePurchase(ws, { storeRef })))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((r) => r.inserted).length, 1)
        assert.strictEqual(new Set(results.map((r) => r.purchase.id)).size, 1)
      }))

    it.effect("lists a workspace's purchases newest first, by cursor", () =>
      Effect.gen(function*() {
        const repo = yield* PurchaseRepository
        const ws = yield* seedWorkspace
        const made = [1, 2, 3, 4, 5].map((s) => makePurchase(ws, { createdAt: at(s) }))
        yield* Effect.forEach(made, repo.lockOrInsert, { discard: true })
        const pages = yield* collectPages((page) => repo.list(ws, page), 2)
        assert.deepStrictEqual(pages.flat().map((p) => p.id), [...made].reverse().map((p) => p.id))
        assert.strictEqual((yield* repo.listAll(ws)).length, 5)
      }))

    it.effect("claimDue leases due purchases once", () =>
      Effect.gen(function*() {
        const repo = yield* PurchaseRepository
        const ws = yield* seedWorkspace
        const due = makePurchase(ws, { nextCheckAt: Option.some(at(10)) })
        const later = makePurchase(ws, { nextCheckAt: Option.some(at(10_000_000)) })
        yield* repo.lockOrInsert(due)
        yield* repo.lockOrInsert(later)
        const claimed = (yield* repo.claimDue(at(20), 100, at(80))).filter((p) => p.workspaceId === ws)
        assert.deepStrictEqual(claimed.map((p) => p.id), [due.id])
        assert.deepStrictEqual((yield* repo.claimDue(at(20), 100, at(80))).filter((p) => p.workspaceId === ws), [])
        assert.deepStrictEqual((yield* repo.claimDue(at(90), 100, at(150))).filter((p) => p.workspaceId === ws).map((p) => p.id), [due.id])
      }))

    it.effect("one account link per (workspace, member), found by its token", () =>
      Effect.gen(function*() {
        const repo = yield* PurchaseRepository
        const ws = yield* seedWorkspace
        const user = UserId.make(`usr_${token()}`)
        const first = AppAccountToken.make("3f0c1f7e-8a53-4a57-9d6c-0f6f3a2b9c1d".replace("3f0c1f7e", token().slice(0, 8)))
        const second = AppAccountToken.make("0a0c1f7e-8a53-4a57-9d6c-0f6f3a2b9c1d".replace("0a0c1f7e", token().slice(0, 8)))
        assert.strictEqual(yield* repo.accountLink(ws, user, first), first)
        assert.strictEqual(yield* repo.accountLink(ws, user, second), first)
        assert.deepStrictEqual(yield* repo.findAccountLink(first), Option.some({ token: first, workspaceId: ws, userId: user }))
        assert.deepStrictEqual(yield* repo.findAccountLink(second), Option.none())
      }))

    it.effect("a sync key is reserved once per 24 hours and answers the first request's digest", () =>
      Effect.gen(function*() {
        const repo = yield* PurchaseRepository
        const ws = yield* seedWorkspace
        assert.deepStrictEqual(yield* repo.reserveSyncKey(ws, "k", "h1", at(0)), Option.none())
        assert.deepStrictEqual(yield* repo.reserveSyncKey(ws, "k", "h2", at(60)), Option.some("h1"))
        assert.deepStrictEqual(yield* repo.reserveSyncKey(ws, "k", "h2", at(25 * 3600)), Option.none())
      }))

    it.effect("the inbox deduplicates by (source, external id), leases due items, completes and requeues them", () =>
      Effect.gen(function*() {
        const inbox = yield* NotificationInbox
        const externalId = `uuid-${token()}`
        const item = makeNotification(externalId)
        assert.isTrue(yield* inbox.insert(item))
        assert.isFalse(yield* inbox.insert(makeNotification(externalId)))
        assert.isTrue(yield* inbox.insert(makeNotification(externalId, { source: "google" })))
        // A repeated client sync finds the item its first request stored.
        assert.deepStrictEqual(Option.map(yield* inbox.findByExternalId("apple", externalId), (n) => n.id), Option.some(item.id))
        assert.isTrue(Option.isNone(yield* inbox.findByExternalId("client_sync", externalId)))
        const mine = (items: ReadonlyArray<StoreNotification>) => items.filter((n) => n.externalId === externalId)
        assert.strictEqual(mine(yield* inbox.claimDue(at(5), 100, at(65))).length, 2)
        assert.strictEqual(mine(yield* inbox.claimDue(at(5), 100, at(65))).length, 0)
        yield* inbox.complete(item.id, "applied", at(6))
        const done = yield* inbox.findById(item.id)
        assert.deepStrictEqual(Option.map(done, (n): ReadonlyArray<string | boolean> => [Option.getOrElse(n.outcome, () => "none"), Option.isSome(n.processedAt)]), Option.some(["applied", true]))
        assert.strictEqual(mine(yield* inbox.claimDue(at(100), 100, at(160))).length, 1)
        assert.isTrue(yield* inbox.requeue(item.id, at(200)))
        assert.isFalse(yield* inbox.requeue(StoreNotificationId.make("sn_missing"), at(200)))
        yield* inbox.retryAt(item.id, 3, at(300))
        const only = (items: ReadonlyArray<StoreNotification>) => items.filter((n) => n.id === item.id)
        assert.strictEqual(only(yield* inbox.claimDue(at(250), 100, at(400))).length, 0)
        const again = only(yield* inbox.claimDue(at(300), 100, at(400)))
        assert.deepStrictEqual(again.map((n) => [n.id, n.attempts]), [[item.id, 3]])
      }))

    it.effect("credits of one store transaction are recorded once", () =>
      Effect.gen(function*() {
        const billing = yield* BillingRepository
        const ws = yield* seedWorkspace
        const reference = `app_store:${token()}`
        assert.isTrue(yield* billing.recordCreditGrant(reference, ws, 5, at(0)))
        assert.isFalse(yield* billing.recordCreditGrant(reference, ws, 5, at(1)))
      }))
  })
