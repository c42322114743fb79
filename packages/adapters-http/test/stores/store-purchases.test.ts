import { assert, describe, it } from "@effect/vitest"
import {
  Entitlements,
  Feature,
  type Role,
  SessionId,
  SessionPrincipal,
  StoreNotificationId,
  type StoreProduct,
  NotificationInbox,
  Purchases,
  SecretBox,
  StoreNotification,
  Usage,
  UserId,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { Domain as Testing, MemoryStore, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Layer, Logger, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { AppleSignatures } from "../../src/outbound/app-store/apple-jws.ts"
import {
  AppleSignaturesFake,
  AppStoreServerApiFake,
  delivery,
  domainOverFakeStores,
  fakeSigned,
  type FakeStoreApiState,
  FakeStoreApis,
  GooglePushTokensFake,
  PlayDeveloperApiFake,
  storesOverFakes
} from "./fake-store-apis.ts"

const pro = Feature.make("ai.advanced")
const custom = Feature.make("domains.custom")
const team = Feature.make("team.seats")
const products: ReadonlyArray<StoreProduct> = [
  { store: "app_store", productId: "pro.monthly", kind: "subscription", features: [pro] },
  { store: "app_store", productId: "pro.yearly", kind: "subscription", features: [pro, custom] },
  { store: "app_store", productId: "team.monthly", kind: "subscription", features: [pro, team] },
  { store: "app_store", productId: "credits.small", kind: "consumable", features: [], credits: 5_000_000 },
  { store: "play_store", productId: "pro_monthly", kind: "subscription", features: [pro] },
  { store: "play_store", productId: "pro_yearly", kind: "subscription", features: [pro, custom] },
  { store: "play_store", productId: "lifetime", kind: "non_consumable", features: [pro] },
  { store: "play_store", productId: "credits.pack", kind: "consumable", features: [], credits: 3_000_000 }
]
const apple = { bundleId: "com.example.atrium", environments: ["production" as const] }
const google = { packageName: "com.example.atrium" }
const Domain = domainOverFakeStores({ products, apple, google })

let userCounter = 0
const member = (workspaceId: WorkspaceId, role: Role = "owner") =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_test"), userId: UserId.make(`usr_t${++userCounter}`), workspaceId, role })

const newWorkspace = Effect.gen(function*() {
  return (yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })).id
})

const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
const fakes = Effect.flatMap(FakeStoreApis, (ref) => Ref.get(ref))
const script = (f: (s: FakeStoreApiState) => FakeStoreApiState) => Effect.flatMap(FakeStoreApis, (ref) => Ref.update(ref, f))

const nowMillis = Effect.map(DateTime.now, DateTime.toEpochMillis)
const day = 86_400_000

/** Scripts the App Store: the subscription `original` is in `status` until `expires`, signed at `signedAt`. */
const appleSubscription = (input: {
  original: string
  transaction: string
  status: number
  expires: number
  signedAt: number
  accountToken?: string
  autoRenew?: number
  productId?: string
}) => {
  const tx = {
    transactionId: input.transaction,
    originalTransactionId: input.original,
    bundleId: apple.bundleId,
    productId: input.productId ?? "pro.monthly",
    environment: "Production",
    signedDate: input.signedAt,
    expiresDate: input.expires,
    ...(input.accountToken === undefined ? {} : { appAccountToken: input.accountToken })
  }
  return {
    tx,
    signed: fakeSigned(tx),
    statuses: [{
      originalTransactionId: input.original,
      status: input.status,
      signedTransactionInfo: fakeSigned(tx),
      signedRenewalInfo: fakeSigned({ signedDate: input.signedAt, autoRenewStatus: input.autoRenew ?? 1 })
    }]
  }
}

const appleNotification = (input: { uuid: string; type: string; subtype?: string; signedAt: number; tx: object; status?: number }) =>
  JSON.stringify({
    signedPayload: fakeSigned({
      notificationType: input.type,
      ...(input.subtype === undefined ? {} : { subtype: input.subtype }),
      notificationUUID: input.uuid,
      signedDate: input.signedAt,
      data: {
        bundleId: apple.bundleId,
        environment: "Production",
        signedTransactionInfo: fakeSigned(input.tx),
        signedRenewalInfo: fakeSigned({ signedDate: input.signedAt, autoRenewStatus: 1 }),
        ...(input.status === undefined ? {} : { status: input.status })
      }
    })
  })

/** Runs the inbox worker's step over everything due. */
const drainInbox = Effect.gen(function*() {
  const purchases = yield* Purchases
  const claimed = yield* purchases.inboxQueue.claim(100)
  for (const item of claimed) yield* purchases.inboxQueue.step(item)
  return claimed.length
})

const features = (workspaceId: WorkspaceId) =>
  Effect.flatMap(Entitlements, (e) => e.active(systemPrincipal(workspaceId))).pipe(Effect.map((grants) => grants.map((g) => `${g.feature}:${g.source}`)))

describe("Purchases", () => {
  it.effect("a client sync verifies with the store, binds the purchase, grants its features and records events", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "1000", transaction: "1000", status: 1, expires: now + 30 * day, signedAt: now })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["1000", sub.statuses]]) }))
      const result = yield* (yield* Purchases).sync(owner, { store: "app_store", signedTransaction: sub.signed })
      assert.strictEqual(result.status, "synced")
      if (result.status !== "synced") return
      assert.deepStrictEqual(result.purchases.map((p) => [p.store, p.status, p.workspaceId]), [["app_store", "active", ws]])
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
      const types = (yield* state).events.map((e) => e.type)
      assert.deepStrictEqual(types, ["purchase.created", "entitlement.granted"])
      assert.includeMembers((yield* state).audit.map((a) => a.action), ["purchase.synced"])
    }).pipe(Effect.provide(Domain)))

  it.effect("a duplicate notification has one effect", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const token = (yield* purchases.availability(owner, "ios")).appAccountToken ?? ""
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "2000", transaction: "2000", status: 1, expires: now + 30 * day, signedAt: now, accountToken: token })
      const body = appleNotification({ uuid: "n-1", type: "SUBSCRIBED", signedAt: now, tx: sub.tx, status: 1 })
      yield* purchases.receive("app_store", delivery(body))
      yield* purchases.receive("app_store", delivery(body))
      assert.strictEqual(yield* drainInbox, 1)
      assert.strictEqual(yield* drainInbox, 0)
      // An operator's replay processes it again, to no further effect.
      const [stored] = Array.from((yield* state).storeNotifications.values())
      yield* purchases.replay(operatorPrincipal(), stored?.id ?? StoreNotificationId.make("sn_missing"))
      assert.strictEqual(yield* drainInbox, 1)
      assert.strictEqual((yield* purchases.replay(operatorPrincipal(), StoreNotificationId.make("sn_missing")).pipe(Effect.flip))._tag, "NotFound")
      const s = yield* state
      assert.strictEqual(s.storeNotifications.size, 1)
      assert.strictEqual(s.purchases.size, 1)
      assert.deepStrictEqual(s.events.map((e) => e.type), ["purchase.created", "entitlement.granted"])
    }).pipe(Effect.provide(Domain)))

  it.effect("an older event after a newer one is ignored", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const token = (yield* purchases.availability(owner, "ios")).appAccountToken ?? ""
      const now = yield* nowMillis
      const expired = appleSubscription({ original: "3000", transaction: "3001", status: 2, expires: now - day, signedAt: now, accountToken: token })
      const active = appleSubscription({ original: "3000", transaction: "3000", status: 1, expires: now + day, signedAt: now - 2 * day, accountToken: token })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-new", type: "EXPIRED", signedAt: now, tx: expired.tx, status: 2 })))
      yield* drainInbox
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-old", type: "SUBSCRIBED", signedAt: now - 2 * day, tx: active.tx, status: 1 })))
      yield* drainInbox
      const [purchase] = Array.from((yield* state).purchases.values())
      assert.strictEqual(purchase?.status, "expired")
      assert.deepStrictEqual(yield* features(ws), [])
      const outcomes = Array.from((yield* state).storeNotifications.values()).map((n) => [n.externalId, Option.getOrNull(n.outcome)])
      assert.deepStrictEqual(outcomes, [["n-new", "applied"], ["n-old", "stale"]])
    }).pipe(Effect.provide(Domain)))

  it.effect("a client sync racing the notification ends with one purchase", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const token = (yield* purchases.availability(owner, "ios")).appAccountToken ?? ""
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "4000", transaction: "4000", status: 1, expires: now + 30 * day, signedAt: now, accountToken: token })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["4000", sub.statuses]]) }))
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-race", type: "SUBSCRIBED", signedAt: now, tx: sub.tx, status: 1 })))
      yield* Effect.all([
        purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed }),
        drainInbox,
        purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
      ], { concurrency: "unbounded" })
      const s = yield* state
      assert.strictEqual(s.purchases.size, 1)
      assert.deepStrictEqual(s.events.filter((e) => e.type === "purchase.created").length, 1)
      assert.deepStrictEqual(s.events.filter((e) => e.type === "entitlement.granted").length, 1)
    }).pipe(Effect.provide(Domain)))

  it.effect("a refund revokes the purchase's grant but a manual grant of the same feature survives", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      yield* (yield* Entitlements).grant(systemPrincipal(ws), { feature: pro, source: "manual" })
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "5000", transaction: "5000", status: 1, expires: now + 30 * day, signedAt: now })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["5000", sub.statuses]]) }))
      yield* purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:manual", "ai.advanced:purchase"])
      yield* TestClock.adjust("1 hour")
      const refunded = { ...sub.tx, revocationDate: now + 3_600_000 }
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-refund", type: "REFUND", signedAt: now + 3_600_000, tx: refunded })))
      yield* drainInbox
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:manual"])
      const types = (yield* state).events.map((e) => e.type)
      assert.includeMembers(types, ["purchase.status_changed", "purchase.refunded", "entitlement.revoked"])
      const revoked = (yield* state).events.filter((e) => e.type === "entitlement.revoked")
      assert.strictEqual(revoked.length, 1)
    }).pipe(Effect.provide(Domain)))

  it.effect("a reversed refund restores the grant the refund revoked, with its audit entry and event; a later read cannot undo a refund", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "5500", transaction: "5500", status: 1, expires: now + 30 * day, signedAt: now })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["5500", sub.statuses]]) }))
      yield* purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-r", type: "REFUND", signedAt: now + 3_600_000, tx: { ...sub.tx, revocationDate: now + 3_600_000 } })))
      yield* drainInbox
      assert.deepStrictEqual(yield* features(ws), [])
      // A newer read of the store that is not a reversal leaves the refund standing.
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-renew", type: "DID_RENEW", signedAt: now + 5_400_000, tx: sub.tx, status: 1 })))
      yield* drainInbox
      assert.deepStrictEqual(yield* features(ws), [])
      const before = (yield* state).events.length
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-rr", type: "REFUND_REVERSED", signedAt: now + 7_200_000, tx: sub.tx })))
      yield* drainInbox
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
      const s = yield* state
      const [purchase] = Array.from(s.purchases.values())
      assert.strictEqual(purchase?.status, "active")
      const added = s.events.slice(before)
      assert.deepStrictEqual(added.map((e) => e.type), ["purchase.status_changed", "entitlement.granted"])
      assert.deepInclude(added[0]?.data ?? {}, { from: "refunded", to: "active" })
      assert.strictEqual(s.audit.filter((a) => a.action === "purchase.refund_reversed").length, 1)
      // The same reversal again (a replay) has no second effect.
      const [reversal] = Array.from(s.storeNotifications.values()).filter((n) => n.externalId === "n-rr")
      yield* purchases.replay(operatorPrincipal(), reversal?.id ?? StoreNotificationId.make("sn_missing"))
      yield* drainInbox
      assert.strictEqual((yield* state).events.length, s.events.length)
    }).pipe(Effect.provide(Domain)))

  it.effect("store down: the sync answers pending, entitlements are unchanged, and the queued sync completes later", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "6000", transaction: "6000", status: 1, expires: now + 30 * day, signedAt: now })
      yield* script((s) => ({ ...s, down: true, appleStatuses: new Map([["6000", sub.statuses]]) }))
      const before = yield* features(ws)
      const result = yield* purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
      assert.strictEqual(result.status, "pending")
      assert.deepStrictEqual(yield* features(ws), before)
      assert.strictEqual((yield* state).purchases.size, 0)
      // Still down when the worker first retries: nothing changes, the item waits.
      yield* TestClock.adjust("2 minutes")
      yield* drainInbox
      assert.deepStrictEqual(yield* features(ws), before)
      yield* script((s) => ({ ...s, down: false }))
      yield* TestClock.adjust("10 minutes")
      yield* drainInbox
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
    }).pipe(Effect.provide(Domain)))

  it.effect("a pending sync gives an id to follow and when to ask again; the same request follows the same sync; another workspace cannot read it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "6500", transaction: "6500", status: 1, expires: now + 30 * day, signedAt: now })
      yield* script((s) => ({ ...s, down: true, appleStatuses: new Map([["6500", sub.statuses]]) }))
      const first = yield* purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
      if (first.status !== "pending") return assert.fail("expected pending")
      assert.deepInclude(first.sync, { status: "pending", retryAfterSeconds: 60 })
      yield* TestClock.adjust("20 seconds")
      const again = yield* purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
      assert.deepInclude(again.status === "pending" ? again.sync : {}, { id: first.sync.id, retryAfterSeconds: 40 })
      const read = yield* purchases.syncStatus(owner, first.sync.id)
      assert.deepStrictEqual([read.status, Option.getOrNull(read.outcome)], ["pending", null])
      const stranger = yield* purchases.syncStatus(member(yield* newWorkspace), first.sync.id).pipe(Effect.flip)
      assert.strictEqual(stranger._tag, "NotFound")
      yield* script((s) => ({ ...s, down: false }))
      yield* TestClock.adjust("1 minute")
      yield* drainInbox
      const done = yield* purchases.syncStatus(owner, first.sync.id)
      assert.deepStrictEqual([done.status, Option.getOrNull(done.outcome)], ["processed", "applied"])
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
    }).pipe(Effect.provide(Domain)))

  it.effect("a failed reconciler lookup never revokes", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "6100", transaction: "6100", status: 1, expires: now + 2 * day, signedAt: now })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["6100", sub.statuses]]) }))
      yield* purchases.sync(member(ws), { store: "app_store", signedTransaction: sub.signed })
      yield* script((s) => ({ ...s, down: true }))
      yield* TestClock.adjust("25 hours")
      const due = yield* purchases.reconcileQueue.claim(10)
      assert.strictEqual(due.length, 1)
      for (const p of due) yield* purchases.reconcileQueue.step(p)
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
    }).pipe(Effect.provide(Domain)))

  it.effect("a Google acknowledgement is retried until it succeeds, only after the grant", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      yield* script((s) => ({
        ...s,
        ackFailures: 3,
        playProducts: new Map([["tok-1", { purchaseState: 0, acknowledged: false, consumed: false, orderId: "GPA.1", accountToken: Option.none(), test: false }]])
      }))
      const result = yield* purchases.sync(member(ws), { store: "play_store", purchaseToken: Redacted.make("tok-1"), productId: "lifetime" })
      assert.strictEqual(result.status, "synced")
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
      const acked = Effect.map(state, (s) => Array.from(s.purchases.values()).map((p) => Option.isSome(p.acknowledgedAt)))
      assert.deepStrictEqual(yield* acked, [false])
      for (let round = 0; round < 10; round++) {
        yield* TestClock.adjust("1 hour")
        const due = yield* purchases.reconcileQueue.claim(10)
        for (const p of due) yield* purchases.reconcileQueue.step(p)
      }
      assert.deepStrictEqual(yield* acked, [true])
      assert.strictEqual((yield* fakes).ackCalls, 4)
      // The token is never stored in plain: only its digest and a sealed copy.
      const stored = Array.from((yield* state).purchases.values())
      assert.isFalse(JSON.stringify(stored.map((p) => [p.storeRef, p.sealedToken])).includes("tok-1"))
    }).pipe(Effect.provide(Domain)))

  it.effect("a Google consumable is consumed after its credits, in the background, once", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      yield* script((s) => ({
        ...s,
        playProducts: new Map([["tok-c", { purchaseState: 0, acknowledged: false, consumed: false, orderId: "GPA.C", accountToken: Option.none(), test: false }]])
      }))
      const result = yield* purchases.sync(member(ws), { store: "play_store", purchaseToken: Redacted.make("tok-c"), productId: "credits.pack" })
      assert.strictEqual(result.status, "synced")
      assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).creditBalanceMicros, 3_000_000)
      // The sync itself settles nothing with the store: that is the reconciler's, due at once.
      assert.deepStrictEqual([(yield* fakes).consumeCalls, (yield* fakes).ackCalls], [0, 0])
      for (let round = 0; round < 3; round++) {
        const due = yield* purchases.reconcileQueue.claim(10)
        for (const p of due) yield* purchases.reconcileQueue.step(p)
        yield* TestClock.adjust("1 hour")
      }
      assert.deepStrictEqual([(yield* fakes).consumeCalls, (yield* fakes).ackCalls], [1, 0])
      assert.isTrue((yield* fakes).playProducts.get("tok-c")?.consumed)
      const s = yield* state
      assert.deepStrictEqual(Array.from(s.purchases.values()).map((p) => Option.isSome(p.acknowledgedAt)), [true])
      assert.strictEqual(s.audit.filter((a) => a.action === "purchase.consumed").length, 1)
      assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).creditBalanceMicros, 3_000_000)
    }).pipe(Effect.provide(Domain)))

  it.effect("an acknowledgement whose answer was lost: the store refuses the repeat, its record says done, one effect", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      const unsettled = { purchaseState: 0, acknowledged: false, consumed: false, orderId: "GPA.L", accountToken: Option.none(), test: false }
      yield* script((s) => ({ ...s, playProducts: new Map([["tok-l", unsettled]]) }))
      yield* purchases.sync(member(ws), { store: "play_store", purchaseToken: Redacted.make("tok-l"), productId: "lifetime" })
      // An earlier attempt reached Google, its answer did not reach us.
      yield* script((s) => ({ ...s, playProducts: new Map([["tok-l", { ...unsettled, acknowledged: true }]]) }))
      for (let round = 0; round < 3; round++) {
        const due = yield* purchases.reconcileQueue.claim(10)
        for (const p of due) yield* purchases.reconcileQueue.step(p)
        yield* TestClock.adjust("1 hour")
      }
      assert.strictEqual((yield* fakes).ackCalls, 1)
      const s = yield* state
      assert.deepStrictEqual(Array.from(s.purchases.values()).map((p) => Option.isSome(p.acknowledgedAt)), [true])
      assert.strictEqual(s.audit.filter((a) => a.action === "purchase.acknowledged").length, 1)
    }).pipe(Effect.provide(Domain)))

  it.effect("a Google upgrade (linkedPurchaseToken) replaces the old purchase: it stops granting, for good, in the same transaction", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const active = (orderId: string, linked: Option.Option<string>) => ({
        subscriptionState: "SUBSCRIPTION_STATE_ACTIVE",
        acknowledged: true,
        latestOrderId: orderId,
        accountToken: Option.none(),
        test: false,
        linkedPurchaseToken: linked,
        lineItems: [{ productId: "pro_monthly", expiryTime: Option.some(new Date(now + 30 * day).toISOString()), autoRenewing: true }]
      })
      yield* script((s) => ({ ...s, playSubscriptions: new Map([["tok-old", active("GPA.O", Option.none())]]) }))
      yield* purchases.sync(owner, { store: "play_store", purchaseToken: Redacted.make("tok-old"), productId: "pro_monthly" })
      const grants = Effect.flatMap(Entitlements, (e) => e.active(systemPrincipal(ws))).pipe(Effect.map((all) => all.map((g) => g.sourceRef)))
      assert.strictEqual((yield* grants).length, 1)
      // The store still answers for the old token as if active: only the link tells that it is over.
      yield* script((s) => ({ ...s, playSubscriptions: new Map([...s.playSubscriptions, ["tok-new", active("GPA.N", Option.some("tok-old"))]]) }))
      const before = (yield* state).events.length
      const result = yield* purchases.sync(owner, { store: "play_store", purchaseToken: Redacted.make("tok-new"), productId: "pro_monthly" })
      assert.strictEqual(result.status, "synced")
      const byOrder = Effect.map(state, (s) => new Map(Array.from(s.purchases.values()).map((p) => [p.latestTransactionId, p])))
      const after = yield* byOrder
      assert.strictEqual(after.get("GPA.O")?.status, "replaced")
      assert.strictEqual(after.get("GPA.N")?.status, "active")
      const successor: string = after.get("GPA.N")?.id ?? "missing"
      assert.deepStrictEqual(yield* grants, [successor])
      const added = (yield* state).events.slice(before)
      assert.includeMembers(added.map((e) => e.type), ["purchase.created", "purchase.status_changed", "entitlement.revoked"])
      assert.strictEqual((yield* state).audit.filter((a) => a.action === "purchase.replaced").length, 1)
      // Later reads of the old token (a notification, a re-sync) cannot bring it back, and the reconciler leaves it.
      yield* purchases.sync(owner, { store: "play_store", purchaseToken: Redacted.make("tok-old"), productId: "pro_monthly" })
      yield* TestClock.adjust("25 hours")
      const due = yield* purchases.reconcileQueue.claim(10)
      assert.deepStrictEqual(due.map((p) => p.latestTransactionId), ["GPA.N"])
      for (const p of due) yield* purchases.reconcileQueue.step(p)
      assert.strictEqual((yield* byOrder).get("GPA.O")?.status, "replaced")
      assert.deepStrictEqual(yield* grants, [successor])
      assert.strictEqual((yield* state).audit.filter((a) => a.action === "purchase.replaced").length, 1)
    }).pipe(Effect.provide(Domain)))

  it.effect("an App Store upgrade moves the purchase to the store's product, its grants follow in the same transaction, and neither a superseded sync nor the reconciler at the old expiry takes them back", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const monthly = appleSubscription({ original: "up-1", transaction: "up-1", status: 1, expires: now + 30 * day, signedAt: now })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["up-1", monthly.statuses]]) }))
      yield* purchases.sync(owner, { store: "app_store", signedTransaction: monthly.signed })
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
      // Upgrade (immediate): a new transaction for the yearly product under the same original transaction.
      yield* TestClock.adjust("1 day")
      const upgradedAt = now + day
      const yearly = appleSubscription({ original: "up-1", transaction: "up-2", status: 1, expires: upgradedAt + 365 * day, signedAt: upgradedAt, productId: "pro.yearly" })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["up-1", yearly.statuses], ["up-2", yearly.statuses]]) }))
      const before = (yield* state).events.length
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-up", type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", signedAt: upgradedAt, tx: yearly.tx, status: 1 })))
      yield* drainInbox
      const purchase = () => Effect.map(state, (s) => Array.from(s.purchases.values())[0])
      assert.strictEqual((yield* purchase())?.productId, "pro.yearly")
      assert.deepStrictEqual((yield* features(ws)).toSorted(), ["ai.advanced:purchase", "domains.custom:purchase"])
      const added = (yield* state).events.slice(before)
      assert.deepStrictEqual(added.map((e) => e.type).toSorted(), ["entitlement.granted", "entitlement.granted", "purchase.product_changed"].toSorted())
      assert.deepInclude(added.find((e) => e.type === "purchase.product_changed")?.data ?? {}, { fromProductId: "pro.monthly", toProductId: "pro.yearly" })
      assert.strictEqual((yield* state).audit.filter((a) => a.action === "purchase.product_changed").length, 1)
      // Availability shows the product the store reports as owned.
      const offered = (yield* purchases.availability(owner, "ios")).products
      assert.deepStrictEqual(offered.filter((p) => p.owned).map((p) => p.productId), ["pro.yearly"])
      // The app syncs the superseded monthly transaction: the store answers "yearly, active", which decides.
      const synced = yield* purchases.sync(owner, { store: "app_store", signedTransaction: monthly.signed })
      assert.strictEqual(synced.status === "synced" ? synced.purchases[0]?.productId : "pending", "pro.yearly")
      assert.deepStrictEqual((yield* features(ws)).toSorted(), ["ai.advanced:purchase", "domains.custom:purchase"])
      // Past the monthly product's expiry the reconciler re-reads the store (yearly, renewed): nothing is revoked.
      yield* TestClock.adjust("31 days")
      const due = yield* purchases.reconcileQueue.claim(10)
      assert.strictEqual(due.length, 1)
      for (const p of due) yield* purchases.reconcileQueue.step(p)
      assert.strictEqual((yield* purchase())?.productId, "pro.yearly")
      assert.deepStrictEqual((yield* features(ws)).toSorted(), ["ai.advanced:purchase", "domains.custom:purchase"])
      assert.isFalse((yield* state).events.slice(before).some((e) => e.type === "entitlement.revoked"))
    }).pipe(Effect.provide(Domain)))

  it.effect("an App Store downgrade applies at renewal and a crossgrade at once: the product and its grants follow the store", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const yearly = appleSubscription({ original: "dn-1", transaction: "dn-1", status: 1, expires: now + 365 * day, signedAt: now, productId: "pro.yearly" })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["dn-1", yearly.statuses]]) }))
      yield* purchases.sync(owner, { store: "app_store", signedTransaction: yearly.signed })
      const product = Effect.map(state, (s) => Array.from(s.purchases.values())[0]?.productId)
      // The downgrade is chosen now; the current transaction stays the yearly one until it renews.
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-dn", type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", signedAt: now + day, tx: yearly.tx, status: 1 })))
      yield* drainInbox
      assert.strictEqual(yield* product, "pro.yearly")
      assert.deepStrictEqual((yield* features(ws)).toSorted(), ["ai.advanced:purchase", "domains.custom:purchase"])
      // At renewal the store bills the monthly product.
      const renewedAt = now + 365 * day
      yield* TestClock.setTime(renewedAt)
      const monthly = appleSubscription({ original: "dn-1", transaction: "dn-2", status: 1, expires: renewedAt + 30 * day, signedAt: renewedAt })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-renew", type: "DID_RENEW", signedAt: renewedAt, tx: monthly.tx, status: 1 })))
      yield* drainInbox
      assert.strictEqual(yield* product, "pro.monthly")
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
      // Crossgrade to a product of the same duration: immediate.
      const crossedAt = renewedAt + day
      const teamTx = appleSubscription({ original: "dn-1", transaction: "dn-3", status: 1, expires: crossedAt + 30 * day, signedAt: crossedAt, productId: "team.monthly" })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-cross", type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", signedAt: crossedAt, tx: teamTx.tx, status: 1 })))
      yield* drainInbox
      assert.strictEqual(yield* product, "team.monthly")
      assert.deepStrictEqual((yield* features(ws)).toSorted(), ["ai.advanced:purchase", "team.seats:purchase"])
      assert.strictEqual((yield* state).audit.filter((a) => a.action === "purchase.product_changed").length, 2)
    }).pipe(Effect.provide(Domain)))

  it.effect("after a refund, a resubscription under the same original transaction applies: a newer store state wins", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "rs-1", transaction: "rs-1", status: 1, expires: now + 30 * day, signedAt: now })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["rs-1", sub.statuses]]) }))
      yield* purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-rf", type: "REFUND", signedAt: now + 3_600_000, tx: { ...sub.tx, revocationDate: now + 3_600_000 } })))
      yield* drainInbox
      assert.deepStrictEqual(yield* features(ws), [])
      // Days later the buyer subscribes again: a new transaction under the same original transaction.
      yield* TestClock.adjust("3 days")
      const again = appleSubscription({ original: "rs-1", transaction: "rs-2", status: 1, expires: now + 33 * day, signedAt: now + 3 * day })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-resub", type: "SUBSCRIBED", subtype: "RESUBSCRIBE", signedAt: now + 3 * day, tx: again.tx, status: 1 })))
      yield* drainInbox
      const s = yield* state
      assert.strictEqual(Array.from(s.purchases.values())[0]?.status, "active")
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
      const outcomes = Array.from(s.storeNotifications.values()).map((n) => [n.externalId, Option.getOrNull(n.outcome)])
      assert.deepInclude(outcomes, ["n-resub", "applied"])
      assert.strictEqual(s.audit.filter((a) => a.action === "purchase.refund_reversed").length, 0)
    }).pipe(Effect.provide(Domain)))

  it.effect("an operator's replay of old notifications, each recorded stale, changes no grant", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const token = (yield* purchases.availability(owner, "ios")).appAccountToken ?? ""
      const now = yield* nowMillis
      const monthly = appleSubscription({ original: "rp-1", transaction: "rp-1", status: 1, expires: now + 30 * day, signedAt: now, accountToken: token })
      const yearly = appleSubscription({ original: "rp-1", transaction: "rp-2", status: 1, expires: now + 365 * day, signedAt: now + day, accountToken: token, productId: "pro.yearly" })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-sub", type: "SUBSCRIBED", signedAt: now, tx: monthly.tx, status: 1 })))
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-renew", type: "DID_RENEW", signedAt: now + 3_600_000, tx: monthly.tx, status: 1 })))
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-up", type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", signedAt: now + day, tx: yearly.tx, status: 1 })))
      yield* drainInbox
      // Even the yearly period is over by the clock, and the store has said nothing newer: that is the reconciler's to read.
      yield* TestClock.adjust("400 days")
      const grantsBefore = (yield* features(ws)).toSorted()
      const before = (yield* state).events.length
      for (const n of Array.from((yield* state).storeNotifications.values()).filter((n) => n.externalId !== "n-up")) {
        yield* purchases.replay(operatorPrincipal(), n.id)
      }
      assert.strictEqual(yield* drainInbox, 2)
      const s = yield* state
      const outcomes = Array.from(s.storeNotifications.values()).map((n) => [n.externalId, Option.getOrNull(n.outcome)])
      assert.deepStrictEqual(outcomes.toSorted(), [["n-renew", "stale"], ["n-sub", "stale"], ["n-up", "applied"]])
      assert.deepStrictEqual(s.events.slice(before).map((e) => e.type), [])
      assert.deepStrictEqual((yield* features(ws)).toSorted(), grantsBefore)
      assert.strictEqual(Array.from(s.purchases.values())[0]?.productId, "pro.yearly")
    }).pipe(Effect.provide(Domain)))

  it.effect("a Google sync naming an older product reads the store's line item: the purchase and its grants follow the store", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      yield* script((s) => ({
        ...s,
        playSubscriptions: new Map([["tok-y", {
          subscriptionState: "SUBSCRIPTION_STATE_ACTIVE",
          acknowledged: true,
          latestOrderId: "GPA.Y",
          accountToken: Option.none(),
          test: false,
          linkedPurchaseToken: Option.none(),
          lineItems: [{ productId: "pro_yearly", expiryTime: Option.some(new Date(now + 365 * day).toISOString()), autoRenewing: true }]
        }]])
      }))
      const result = yield* purchases.sync(owner, { store: "play_store", purchaseToken: Redacted.make("tok-y"), productId: "pro_monthly" })
      assert.strictEqual(result.status === "synced" ? result.purchases[0]?.productId : "pending", "pro_yearly")
      assert.deepStrictEqual((yield* features(ws)).toSorted(), ["ai.advanced:purchase", "domains.custom:purchase"])
    }).pipe(Effect.provide(Domain)))

  it.effect("a purchase bound to another workspace answers purchase_owned_elsewhere", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const a = yield* newWorkspace
      const b = yield* newWorkspace
      const purchases = yield* Purchases
      yield* script((s) => ({
        ...s,
        playProducts: new Map([["tok-2", { purchaseState: 0, acknowledged: true, consumed: false, orderId: "GPA.2", accountToken: Option.none(), test: false }]])
      }))
      const request = { store: "play_store" as const, purchaseToken: Redacted.make("tok-2"), productId: "lifetime" }
      yield* purchases.sync(member(a), request)
      const error = yield* purchases.sync(member(b), request).pipe(Effect.flip)
      assert.strictEqual(error._tag, "PurchaseOwnedElsewhere")
      assert.deepStrictEqual(yield* features(b), [])
      // An account link of workspace A in the signed transaction refuses a sync from B even for a new purchase.
      const ownerA = member(a)
      const tokenA = (yield* purchases.availability(ownerA, "ios")).appAccountToken ?? ""
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "7000", transaction: "7000", status: 1, expires: now + day, signedAt: now, accountToken: tokenA })
      yield* script((s) => ({ ...s, appleStatuses: new Map([["7000", sub.statuses]]) }))
      const linked = yield* purchases.sync(member(b), { store: "app_store", signedTransaction: sub.signed }).pipe(Effect.flip)
      assert.strictEqual(linked._tag, "PurchaseOwnedElsewhere")
    }).pipe(Effect.provide(Domain)))

  it.effect("a consumable is credited once per transaction", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const now = yield* nowMillis
      const tx = { transactionId: "8000", originalTransactionId: "8000", bundleId: apple.bundleId, productId: "credits.small", environment: "Production", signedDate: now }
      yield* script((s) => ({ ...s, appleTransactions: new Map([["8000", fakeSigned(tx)]]) }))
      yield* purchases.sync(owner, { store: "app_store", signedTransaction: fakeSigned(tx) })
      yield* purchases.sync(owner, { store: "app_store", signedTransaction: fakeSigned(tx) })
      const token = (yield* purchases.availability(owner, "ios")).appAccountToken ?? ""
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-c", type: "ONE_TIME_CHARGE", signedAt: now, tx: { ...tx, appAccountToken: token } })))
      yield* drainInbox
      assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).creditBalanceMicros, 5_000_000)
      assert.deepStrictEqual(yield* features(ws), [])
    }).pipe(Effect.provide(Domain)))

  it.effect("Idempotency-Key: the same key with another request is refused", () =>
    Effect.gen(function*() {
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      yield* script((s) => ({ ...s, down: true }))
      const owner = member(ws)
      yield* purchases.sync(owner, { store: "play_store", purchaseToken: Redacted.make("a"), productId: "lifetime" }, "key-1")
      const error = yield* purchases.sync(owner, { store: "play_store", purchaseToken: Redacted.make("b"), productId: "lifetime" }, "key-1").pipe(Effect.flip)
      assert.strictEqual(error._tag, "IdempotencyKeyReused")
    }).pipe(Effect.provide(Domain)))
})

describe("availability", () => {
  const cases: ReadonlyArray<{
    readonly name: string
    readonly platform: string
    readonly configured: boolean
    readonly role: Role
    readonly otherStore: boolean
    readonly expected: string | null
  }> = [
    { name: "web", platform: "web", configured: true, role: "owner", otherStore: false, expected: "platform_not_supported" },
    { name: "ios unconfigured", platform: "ios", configured: false, role: "owner", otherStore: false, expected: "store_not_configured" },
    { name: "android unconfigured", platform: "android", configured: false, role: "admin", otherStore: false, expected: "store_not_configured" },
    { name: "ios member", platform: "ios", configured: true, role: "member", otherStore: false, expected: "role_forbidden" },
    { name: "android member", platform: "android", configured: true, role: "member", otherStore: true, expected: "role_forbidden" },
    { name: "ios admin", platform: "ios", configured: true, role: "admin", otherStore: false, expected: null },
    { name: "android owner", platform: "android", configured: true, role: "owner", otherStore: false, expected: null },
    { name: "ios with a Play subscription", platform: "ios", configured: true, role: "owner", otherStore: true, expected: "managed_elsewhere" },
    { name: "android with an App Store subscription", platform: "android", configured: true, role: "admin", otherStore: true, expected: "managed_elsewhere" }
  ]
  for (const c of cases) {
    it.effect(`${c.name} → ${c.expected ?? "available"}`, () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.UTC(2030, 0, 1))
        const ws = yield* newWorkspace
        const purchases = yield* Purchases
        if (c.otherStore) {
          const now = yield* nowMillis
          const owner = member(ws)
          if (c.platform === "android") {
            const sub = appleSubscription({ original: "9000", transaction: "9000", status: 1, expires: now + day, signedAt: now })
            yield* script((s) => ({ ...s, appleStatuses: new Map([["9000", sub.statuses]]) }))
            yield* purchases.sync(owner, { store: "app_store", signedTransaction: sub.signed })
          } else {
            yield* script((s) => ({
              ...s,
              playSubscriptions: new Map([["tok-s", {
                subscriptionState: "SUBSCRIPTION_STATE_ACTIVE",
                acknowledged: true,
                latestOrderId: "GPA.9",
                accountToken: Option.none(),
                test: false,
                linkedPurchaseToken: Option.none(),
                lineItems: [{ productId: "pro_monthly", expiryTime: Option.some(new Date(now + day).toISOString()), autoRenewing: true }]
              }]])
            }))
            yield* purchases.sync(owner, { store: "play_store", purchaseToken: Redacted.make("tok-s"), productId: "pro_monthly" })
          }
        }
        const answer = yield* purchases.availability(member(ws, c.role), c.platform)
        assert.strictEqual(answer.reason, c.expected)
        assert.strictEqual(answer.available, c.expected === null)
        assert.strictEqual(answer.appAccountToken !== null, c.expected === null || c.expected === "managed_elsewhere")
        if (c.expected === null) assert.isAbove(answer.products.length, 0)
      }).pipe(Effect.provide(domainOverFakeStores(c.configured ? { products, apple, google } : { products })))
    )
  }

  it.effect("one account link per (workspace, member), a UUID", () =>
    Effect.gen(function*() {
      const ws = yield* newWorkspace
      const owner = member(ws)
      const purchases = yield* Purchases
      const first = yield* purchases.availability(owner, "ios")
      const second = yield* purchases.availability(owner, "android")
      assert.match(first.appAccountToken ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.strictEqual(first.appAccountToken, second.appAccountToken)
      assert.notStrictEqual((yield* purchases.availability(member(ws), "ios")).appAccountToken, first.appAccountToken)
    }).pipe(Effect.provide(Domain)))
})

describe("store notification intake and worker faults", () => {
  const capture = (lines: Array<string>) => Logger.layer([Logger.formatJson.pipe(Logger.map((line) => void lines.push(line)))])

  it.effect("a refused signature is answered without its reason, which goes to the log", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const purchases = yield* Purchases
      const refused = yield* purchases.receive("app_store", delivery(JSON.stringify({ signedPayload: "forged.abc" }))).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "InvalidSignature")
      assert.notInclude(JSON.stringify(refused), "not a fake signature")
      const forged = yield* purchases.receive("play_store", delivery(JSON.stringify({ message: { data: "", messageId: "m" } }), "Bearer forged")).pipe(Effect.flip)
      assert.notInclude(JSON.stringify(forged), "bearer token")
      assert.isTrue(lines.some((line) => line.includes("store signature refused") && line.includes("not a fake signature")), lines.join("\n"))
      assert.isTrue(lines.some((line) => line.includes("bearer token")))
    }).pipe(Effect.provide(Domain), Effect.provide(capture(lines)))
  })

  it.effect("a store not configured answers its notifications unavailable, logged as an error", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const purchases = yield* Purchases
      const apple = yield* purchases.receive("app_store", delivery(JSON.stringify({ signedPayload: "fake.abc" }))).pipe(Effect.flip)
      const google = yield* purchases.receive("play_store", delivery(JSON.stringify({ message: { data: "", messageId: "m" } }), "Bearer good-push-token")).pipe(Effect.flip)
      assert.deepStrictEqual([apple._tag, google._tag], ["Unavailable", "Unavailable"])
      const errors = lines.filter((line) => line.includes("not configured for that store") && line.includes("\"level\":\"ERROR\""))
      assert.strictEqual(errors.length, 2, lines.join("\n"))
    }).pipe(Effect.provide(domainOverFakeStores({ products })), Effect.provide(capture(lines)))
  })

  it.effect("a notification is verified once, at the door: the worker checks no signature again", () => {
    let verified = 0
    const counting = Layer.effect(
      AppleSignatures,
      Effect.map(Effect.service(AppleSignatures), (fake) => AppleSignatures.of({ verify: (jws, at) => Effect.sync(() => void verified++).pipe(Effect.andThen(fake.verify(jws, at))) }))
    ).pipe(Layer.provide(AppleSignaturesFake))
    const counted = Testing.layerMemoryWith({ stores: { products }, replace: storesOverFakes({ apple }) }).pipe(
      Layer.provideMerge(Layer.mergeAll(AppStoreServerApiFake, PlayDeveloperApiFake, GooglePushTokensFake, counting)),
      Layer.provideMerge(FakeStoreApis.layer)
    )
    return Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      const token = (yield* purchases.availability(member(ws), "ios")).appAccountToken ?? ""
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "once-1", transaction: "once-1", status: 1, expires: now + 30 * day, signedAt: now, accountToken: token })
      yield* purchases.receive("app_store", delivery(appleNotification({ uuid: "n-once", type: "SUBSCRIBED", signedAt: now, tx: sub.tx, status: 1 })))
      // The notification, its transaction and its renewal info: three signatures, each checked once.
      assert.strictEqual(verified, 3)
      assert.strictEqual(yield* drainInbox, 1)
      assert.strictEqual(verified, 3)
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
    }).pipe(Effect.provide(counted))
  })

  it.effect("inbox rows an earlier version stored in the stores' own formats are still applied after an upgrade", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      const token = (yield* purchases.availability(member(ws), "ios")).appAccountToken ?? ""
      const now = yield* nowMillis
      const sub = appleSubscription({ original: "old-1", transaction: "old-1", status: 1, expires: now + 30 * day, signedAt: now, accountToken: token })
      const { signedPayload } = JSON.parse(appleNotification({ uuid: "n-old-row", type: "SUBSCRIBED", signedAt: now, tx: sub.tx, status: 1 }))
      const box = yield* SecretBox
      const at = yield* DateTime.now
      const row = (source: "apple" | "google", id: string, body: string) =>
        Effect.map(box.seal(Redacted.make(body)), (sealedBody) =>
          new StoreNotification({
            id: StoreNotificationId.make(id),
            source,
            externalId: id,
            sealedBody,
            workspaceId: Option.none(),
            userId: Option.none(),
            receivedAt: at,
            attempts: 0,
            nextAttemptAt: Option.some(at),
            processedAt: Option.none(),
            outcome: Option.none()
          }))
      const inbox = yield* NotificationInbox
      yield* inbox.insert(yield* row("apple", "sn_oldApple", String(signedPayload)))
      const elsewhere = JSON.stringify({ packageName: "com.other", subscriptionNotification: { purchaseToken: "t", subscriptionId: "pro_monthly" } })
      yield* inbox.insert(yield* row("google", "sn_oldGoogle", JSON.stringify({ message: { data: btoa(elsewhere), messageId: "m-old" } })))
      assert.strictEqual(yield* drainInbox, 2)
      const outcomes = Array.from((yield* state).storeNotifications.values()).map((n) => [n.externalId, Option.getOrNull(n.outcome)])
      assert.deepStrictEqual(outcomes, [["sn_oldApple", "applied"], ["sn_oldGoogle", "ignored"]])
      assert.deepStrictEqual(yield* features(ws), ["ai.advanced:purchase"])
    }).pipe(Effect.provide(Domain)))
})
