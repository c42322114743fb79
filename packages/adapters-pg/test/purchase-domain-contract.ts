import {
  AiProvider,
  Entitlements,
  Feature,
  Purchases,
  SessionId,
  SessionPrincipal,
  type StoreObservation,
  type StoreVerdict,
  Usage,
  UserId,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { Domain, fakeNotice, FakeStores, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Ports } from "../src/index.ts"
import { token } from "./fixtures.ts"

const pro = Feature.make("ai.advanced")

// The whole domain, purchases included, over the Postgres ports under test; the stores are scripted fakes.
const domain = Domain.layerOver(Layer.empty, {
  replace: AiProvider.layer,
  stores: {
    products: [
      { store: "app_store", productId: "pro.monthly", kind: "subscription", features: [pro] },
      { store: "app_store", productId: "credits.small", kind: "consumable", features: [], credits: 1_000_000 }
    ],
    configured: ["app_store"]
  }
})

const owner = (workspaceId: WorkspaceId) =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_pg"), userId: UserId.make(`usr_${token()}`), workspaceId, role: "owner" })

const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))
const count = (query: Effect.Effect<ReadonlyArray<unknown>, unknown, SqlClient.SqlClient>) =>
  query.pipe(Effect.flatMap(decodeCount), Effect.map(([row]) => row.count))

// What the App Store says of a purchase, in the domain's words (the store adapters' own tests speak Apple's).
const verdictOf = (input: { original: string; productId: string; accountToken?: string; at: number; expires?: number; withdrawn?: "refunded" }): StoreVerdict => {
  const expiresAt = input.expires === undefined ? Option.none() : Option.some(DateTime.makeUnsafe(input.expires))
  return {
    store: "app_store",
    environment: "production",
    storeRef: input.original,
    productId: input.productId,
    transactionId: input.original,
    storeTime: DateTime.makeUnsafe(input.at),
    accountToken: Option.fromNullishOr(input.accountToken),
    refundReversed: false,
    withdrawn: Option.fromNullishOr(input.withdrawn),
    expiresAt,
    subscription: { status: "active", autoRenew: true, expiresAt }
  }
}

const observationOf = (verdict: StoreVerdict, status: StoreObservation["status"] = "active"): StoreObservation => ({
  ...verdict,
  status,
  autoRenew: verdict.subscription.autoRenew,
  expiresAt: verdict.expiresAt,
  acknowledged: true,
  replaces: Option.none()
})

// Scripts the store: a client's proof `signed-<original>` names the purchase; the store reads it as `observation`.
const script = (verdict: StoreVerdict, observation: StoreObservation = observationOf(verdict)) =>
  Effect.flatMap(FakeStores, (ref) =>
    Ref.update(ref, (s) => ({
      ...s,
      claims: new Map([...s.claims, [`signed-${verdict.storeRef}`, { storeRef: verdict.storeRef, transactionId: verdict.transactionId, productId: verdict.productId, environment: verdict.environment }]]),
      purchases: new Map([...s.purchases, [verdict.storeRef, observation]])
    })))

const notification = (externalId: string, verdict: StoreVerdict) => fakeNotice({ externalId, notice: { _tag: "Observed", verdict } })

/** Purchases end to end on a real database: row locks, not a global lock, keep racing appliers to one purchase. */
export const purchaseDomainContract = <E>(label: string, target: Layer.Layer<Ports | SqlClient.SqlClient, E>) =>
  layer(domain.pipe(Layer.provideMerge(target)), { timeout: "60 seconds", excludeTestServices: true })(`purchases end to end on ${label}`, (it) => {
    it.effect("client syncs racing notifications and the worker end with one purchase, one creation and one grant", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const purchases = yield* Purchases
        const ws = (yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Race" })).id
        const buyer = owner(ws)
        const link = (yield* purchases.availability(buyer, "ios")).appAccountToken ?? ""
        const original = `race-${token()}`
        const now = Date.now()
        const sub = verdictOf({ original, productId: "pro.monthly", accountToken: link, at: now, expires: now + 30 * 86_400_000 })
        yield* script(sub)
        yield* purchases.receive("app_store", notification(`n-${original}`, sub))
        const drain = purchases.inboxQueue.claim(50).pipe(Effect.flatMap((items) => Effect.forEach(items, purchases.inboxQueue.step, { discard: true })))
        yield* Effect.all([
          purchases.sync(buyer, { store: "app_store", signedTransaction: `signed-${original}` }),
          purchases.sync(buyer, { store: "app_store", signedTransaction: `signed-${original}` }),
          drain,
          purchases.sync(buyer, { store: "app_store", signedTransaction: `signed-${original}` })
        ], { concurrency: "unbounded" })
        assert.strictEqual(yield* count(sql`SELECT count(*)::int AS count FROM purchases WHERE store_ref = ${original}`), 1)
        assert.strictEqual(yield* count(sql`SELECT count(*)::int AS count FROM events WHERE workspace_id = ${ws} AND type = 'purchase.created'`), 1)
        assert.strictEqual(yield* count(sql`SELECT count(*)::int AS count FROM events WHERE workspace_id = ${ws} AND type = 'entitlement.granted'`), 1)
      }))

    it.effect("a refund ends the purchase's grant and leaves the manual one; consumable credits land once", () =>
      Effect.gen(function*() {
        const purchases = yield* Purchases
        const entitlements = yield* Entitlements
        const ws = (yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Refund" })).id
        const buyer = owner(ws)
        const link = (yield* purchases.availability(buyer, "ios")).appAccountToken ?? ""
        yield* entitlements.grant(systemPrincipal(ws), { feature: pro, source: "manual" })
        const original = `refund-${token()}`
        const now = Date.now()
        const sub = verdictOf({ original, productId: "pro.monthly", accountToken: link, at: now, expires: now + 30 * 86_400_000 })
        yield* script(sub)
        yield* purchases.sync(buyer, { store: "app_store", signedTransaction: `signed-${original}` })
        yield* purchases.receive("app_store", notification(`r-${original}`, { ...sub, storeTime: DateTime.makeUnsafe(now + 1000), withdrawn: Option.some("refunded") }))
        yield* purchases.inboxQueue.claim(50).pipe(Effect.flatMap((items) => Effect.forEach(items, purchases.inboxQueue.step, { discard: true })))
        assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(ws))).map((e) => e.source), ["manual"])

        const credit = verdictOf({ original: `c-${token()}`, productId: "credits.small", at: Date.now() })
        yield* script(credit, { ...observationOf(credit), autoRenew: false })
        yield* Effect.all(Array.from({ length: 4 }, () => purchases.sync(buyer, { store: "app_store", signedTransaction: `signed-${credit.storeRef}` })), { concurrency: "unbounded" })
        assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).creditBalanceMicros, 1_000_000)
      }))
  })
