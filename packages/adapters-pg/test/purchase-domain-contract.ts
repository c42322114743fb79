import {
  AiProvider,
  AiServices,
  DomainServices,
  Entitlements,
  Feature,
  ModelCatalog,
  Primitives,
  PurchaseServices,
  Purchases,
  SecretBox,
  SessionId,
  SessionPrincipal,
  StoreConfiguration,
  StoreProducts,
  Usage,
  UserId,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { fakeSigned, FakeStores, operatorPrincipal, StoresMemory, systemPrincipal, WebhookTransportMemory } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Ports } from "../src/index.ts"
import { token } from "./fixtures.ts"

const bundleId = "com.example.atrium"
const pro = Feature.make("ai.advanced")

// The whole domain, purchases included, over the Postgres ports under test; the stores are scripted fakes.
const domain = PurchaseServices.pipe(
  Layer.provideMerge(Layer.mergeAll(DomainServices, AiServices)),
  Layer.provideMerge(Layer.mergeAll(
    Primitives(),
    ModelCatalog.layer,
    WebhookTransportMemory,
    SecretBox.layerRandom,
    AiProvider.layerLocal,
    StoresMemory,
    StoreProducts.layerFrom([
      { store: "app_store", productId: "pro.monthly", kind: "subscription", features: [pro] },
      { store: "app_store", productId: "credits.small", kind: "consumable", features: [], credits: 1_000_000 }
    ]),
    StoreConfiguration.layerFrom({ apple: Option.some({ bundleId, environments: ["production"] }), google: Option.none() })
  ))
)

const owner = (workspaceId: WorkspaceId) =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_pg"), userId: UserId.make(`usr_${token()}`), workspaceId, role: "owner" })

const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))
const count = (query: Effect.Effect<ReadonlyArray<unknown>, unknown, SqlClient.SqlClient>) =>
  query.pipe(Effect.flatMap(decodeCount), Effect.map(([row]) => row.count))

const subscription = (original: string, accountToken: string) => {
  const now = Date.now()
  const tx = { transactionId: original, originalTransactionId: original, bundleId, productId: "pro.monthly", environment: "Production", signedDate: now, expiresDate: now + 30 * 86_400_000, appAccountToken: accountToken }
  return {
    tx,
    signed: fakeSigned(tx),
    statuses: [{ originalTransactionId: original, status: 1, signedTransactionInfo: fakeSigned(tx), signedRenewalInfo: fakeSigned({ signedDate: now, autoRenewStatus: 1 }) }]
  }
}

const notification = (uuid: string, type: string, tx: object, signedDate: number) =>
  JSON.stringify({
    signedPayload: fakeSigned({ notificationType: type, notificationUUID: uuid, signedDate, data: { bundleId, environment: "Production", signedTransactionInfo: fakeSigned(tx), status: type === "REFUND" ? undefined : 1 } })
  })

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
        const sub = subscription(original, link)
        yield* Effect.flatMap(FakeStores, (ref) => Ref.update(ref, (s) => ({ ...s, appleStatuses: new Map([...s.appleStatuses, [original, sub.statuses]]) })))
        yield* purchases.receiveApple(notification(`n-${original}`, "SUBSCRIBED", sub.tx, sub.tx.signedDate))
        const drain = purchases.inboxQueue.claim(50).pipe(Effect.flatMap((items) => Effect.forEach(items, purchases.inboxQueue.step, { discard: true })))
        yield* Effect.all([
          purchases.sync(buyer, { store: "app_store", signedTransaction: sub.signed }),
          purchases.sync(buyer, { store: "app_store", signedTransaction: sub.signed }),
          drain,
          purchases.sync(buyer, { store: "app_store", signedTransaction: sub.signed })
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
        const sub = subscription(original, link)
        yield* Effect.flatMap(FakeStores, (ref) => Ref.update(ref, (s) => ({ ...s, appleStatuses: new Map([...s.appleStatuses, [original, sub.statuses]]) })))
        yield* purchases.sync(buyer, { store: "app_store", signedTransaction: sub.signed })
        yield* purchases.receiveApple(notification(`r-${original}`, "REFUND", { ...sub.tx, revocationDate: Date.now() }, Date.now() + 1000))
        yield* purchases.inboxQueue.claim(50).pipe(Effect.flatMap((items) => Effect.forEach(items, purchases.inboxQueue.step, { discard: true })))
        assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(ws))).map((e) => e.source), ["manual"])

        const credit = { transactionId: `c-${token()}`, originalTransactionId: `c-${token()}`, bundleId, productId: "credits.small", environment: "Production", signedDate: Date.now() }
        yield* Effect.flatMap(FakeStores, (ref) => Ref.update(ref, (s) => ({ ...s, appleTransactions: new Map([...s.appleTransactions, [credit.transactionId, fakeSigned(credit)]]) })))
        yield* Effect.all(Array.from({ length: 4 }, () => purchases.sync(buyer, { store: "app_store", signedTransaction: fakeSigned(credit) })), { concurrency: "unbounded" })
        assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).creditBalanceMicros, 1_000_000)
      }))
  })
