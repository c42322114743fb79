import { Feature, type StoreProduct } from "@atrium/domain"
import { Domain, type StoreSetup, fakeSigned, FakeStores, MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Ref } from "effect"
import { HttpRouter } from "effect/http"
import { HttpAppLayerMemory, routerConfig } from "../src/index.ts"
import { addKey, defaultOptions, send, sendJson } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"
import { records } from "./json.ts"

const products: ReadonlyArray<StoreProduct> = [
  { store: "app_store", productId: "pro.monthly", kind: "subscription", features: [Feature.make("ai.advanced")] },
  { store: "play_store", productId: "lifetime", kind: "non_consumable", features: [Feature.make("ai.advanced")] }
]
const bundleId = "com.example.atrium"

const serve = (stores: StoreSetup) =>
  HttpRouter.serve(HttpAppLayerMemory(defaultOptions), { disableLogger: true, disableListenLog: true, routerConfig }).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(Domain.layerMemoryWith({ stores }))
  )
const App = serve({ products, apple: { bundleId, environments: ["production"] }, google: { packageName: bundleId } })
const Unconfigured = serve({ products })

/** A Pub/Sub push whose developer notification is `json` (as text, so a test can write any escape into it). */
const googlePush = (json: string, messageId: string) =>
  JSON.stringify({ message: { data: btoa(json), messageId }, subscription: "projects/p/subscriptions/s" })

const subscription = (original: string, accountToken?: string) => {
  const now = Date.now()
  const tx = {
    transactionId: original,
    originalTransactionId: original,
    bundleId,
    productId: "pro.monthly",
    environment: "Production",
    signedDate: now,
    expiresDate: now + 30 * 86_400_000,
    ...(accountToken === undefined ? {} : { appAccountToken: accountToken })
  }
  const statuses = [{ originalTransactionId: original, status: 1, signedTransactionInfo: fakeSigned(tx), signedRenewalInfo: fakeSigned({ signedDate: now, autoRenewStatus: 1 }) }]
  return { tx, signed: fakeSigned(tx), statuses }
}

const scriptApple = (original: string, statuses: ReturnType<typeof subscription>["statuses"]) =>
  Effect.flatMap(FakeStores, (ref) => Ref.update(ref, (s) => ({ ...s, appleStatuses: new Map([...s.appleStatuses, [original, statuses]]) })))
const storeDown = (down: boolean) => Effect.flatMap(FakeStores, (ref) => Ref.update(ref, (s) => ({ ...s, down })))

describe("purchases over HTTP", () => {
  it.live("availability, sync (200, 202, 403, 409), reads on /api/mobile and /api/v1", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const asMember = yield* send("GET", "/api/mobile/purchases/availability?platform=ios", { key: team.member.token })
      assert.strictEqual(asMember.status, 200, asMember.text)
      assert.deepInclude(asMember.body, { available: false, reason: "role_forbidden", appAccountToken: null })
      const asAdmin = yield* send("GET", "/api/mobile/purchases/availability?platform=ios", { key: team.admin.token })
      assert.deepInclude(asAdmin.body, { available: true, reason: null })
      assert.match(String(asAdmin.body.appAccountToken), /^[0-9a-f-]{36}$/)
      const web = yield* send("GET", "/api/mobile/purchases/availability?platform=web", { key: team.admin.token })
      assert.strictEqual(web.body.reason, "platform_not_supported")

      const sub = subscription("h-1000")
      yield* scriptApple("h-1000", sub.statuses)
      const forbidden = yield* sendJson("POST", "/api/mobile/purchases/sync", team.member.token, { store: "app_store", signedTransaction: sub.signed })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual(forbidden.body.code, "forbidden")
      const synced = yield* sendJson("POST", "/api/mobile/purchases/sync", team.admin.token, { store: "app_store", signedTransaction: sub.signed }, {
        "idempotency-key": "sync-1"
      })
      assert.strictEqual(synced.status, 200, synced.text)
      const [purchase] = records(synced.body.purchases)
      assert.strictEqual(purchase?.status, "active")
      assert.notProperty(purchase, "storeRef")
      assert.include(synced.text, "\"purchaseId\":\"pur_")
      const reused = yield* sendJson("POST", "/api/mobile/purchases/sync", team.admin.token, { store: "play_store", purchaseToken: "t", productId: "lifetime" }, {
        "idempotency-key": "sync-1"
      })
      assert.strictEqual(reused.body.code, "idempotency_key_reused")

      const entitlement = yield* send("GET", "/api/mobile/entitlement", { key: team.member.token })
      assert.strictEqual(entitlement.body.access, "full")

      const listed = yield* send("GET", "/api/mobile/purchases", { key: team.member.token })
      assert.deepStrictEqual(records(listed.body.data).map((p) => p.id), [purchase?.id])
      const one = yield* send("GET", `/api/mobile/purchases/${String(purchase?.id)}`, { key: team.member.token })
      assert.strictEqual(one.status, 200)
      const key = yield* addKey(team.workspaceId, ["read"])
      const v1 = yield* send("GET", "/api/v1/purchases", { key })
      assert.strictEqual(v1.status, 200, v1.text)
      assert.deepStrictEqual(records(v1.body.data).map((p) => p.id), [purchase?.id])

      // Another workspace: the purchase is not visible, and syncing it there is refused.
      const other = yield* seedTeam
      const hidden = yield* send("GET", `/api/mobile/purchases/${String(purchase?.id)}`, { key: other.owner.token })
      assert.strictEqual(hidden.status, 404)
      const elsewhere = yield* sendJson("POST", "/api/mobile/purchases/sync", other.owner.token, { store: "app_store", signedTransaction: sub.signed })
      assert.strictEqual(elsewhere.status, 409, elsewhere.text)
      assert.strictEqual(elsewhere.body.code, "purchase_owned_elsewhere")

      // The store down: 202 pending, nothing revoked.
      const next = subscription("h-2000")
      yield* scriptApple("h-2000", next.statuses)
      yield* storeDown(true)
      const pending = yield* sendJson("POST", "/api/mobile/purchases/sync", other.owner.token, { store: "app_store", signedTransaction: next.signed })
      yield* storeDown(false)
      assert.strictEqual(pending.status, 202, pending.text)
      assert.strictEqual(pending.body.status, "pending")
      const otherEntitlement = yield* send("GET", "/api/mobile/entitlement", { key: other.owner.token })
      assert.strictEqual(otherEntitlement.body.access, "none")
    }).pipe(Effect.provide(App)))

  it.live("store notifications: a bad signature is 401 invalid_signature, a good one 200", () =>
    Effect.gen(function*() {
      const unsigned = yield* sendJson("POST", "/api/store-notifications/apple", "", { signedPayload: "a.b.c" })
      assert.strictEqual(unsigned.status, 401, unsigned.text)
      assert.strictEqual(unsigned.body.code, "invalid_signature")
      const signed = fakeSigned({ notificationType: "TEST", notificationUUID: "u-1", signedDate: Date.now(), data: { bundleId, environment: "Production" } })
      const ok = yield* sendJson("POST", "/api/store-notifications/apple", "", { signedPayload: signed })
      assert.strictEqual(ok.status, 200, ok.text)
      const push = { message: { data: btoa(JSON.stringify({ packageName: bundleId })), messageId: "m-1" }, subscription: "projects/p/subscriptions/s" }
      const noToken = yield* send("POST", "/api/store-notifications/google", { body: JSON.stringify(push) })
      assert.strictEqual(noToken.status, 401)
      assert.strictEqual(noToken.body.code, "invalid_signature")
      const pushed = yield* send("POST", "/api/store-notifications/google", { body: JSON.stringify(push), headers: { authorization: "Bearer good-push-token" } })
      assert.strictEqual(pushed.status, 200, pushed.text)
    }).pipe(Effect.provide(App)))

  it.live("a refused notification answers invalid_signature alone: the failed check is not named to the sender", () =>
    Effect.gen(function*() {
      const unsigned = yield* sendJson("POST", "/api/store-notifications/apple", "", { signedPayload: "a.b.c" })
      assert.strictEqual(unsigned.status, 401, unsigned.text)
      assert.strictEqual(unsigned.body.code, "invalid_signature")
      assert.notProperty(unsigned.body, "reason")
      assert.notInclude(unsigned.text, "fake signature")
      const push = googlePush(JSON.stringify({ packageName: bundleId }), "m-r")
      const badToken = yield* send("POST", "/api/store-notifications/google", { body: push, headers: { authorization: "Bearer forged" } })
      assert.strictEqual(badToken.status, 401, badToken.text)
      assert.notProperty(badToken.body, "reason")
      assert.notInclude(badToken.text, "bearer token")
    }).pipe(Effect.provide(App)))

  it.live("a store this server is not configured for answers its notifications 503 unavailable with Retry-After, never 401", () =>
    Effect.gen(function*() {
      const signed = fakeSigned({ notificationType: "TEST", notificationUUID: "u-nc", signedDate: Date.now(), data: { bundleId, environment: "Production" } })
      const apple = yield* sendJson("POST", "/api/store-notifications/apple", "", { signedPayload: signed })
      const google = yield* send("POST", "/api/store-notifications/google", {
        body: googlePush(JSON.stringify({ packageName: bundleId }), "m-nc"),
        headers: { authorization: "Bearer good-push-token" }
      })
      for (const answer of [apple, google]) {
        assert.strictEqual(answer.status, 503, answer.text)
        assert.strictEqual(answer.body.code, "unavailable")
        assert.match(answer.headers["retry-after"] ?? "", /^[0-9]+$/)
      }
    }).pipe(Effect.provide(Unconfigured)))

  it.live("a Google push whose signed message holds a lone surrogate is refused at intake with 400, and stored nowhere", () =>
    Effect.gen(function*() {
      const lone = `{"packageName":"${bundleId}","subscriptionNotification":{"purchaseToken":"tok\\ud800en","subscriptionId":"pro"}}`
      const refused = yield* send("POST", "/api/store-notifications/google", { body: googlePush(lone, "m-lone"), headers: { authorization: "Bearer good-push-token" } })
      assert.strictEqual(refused.status, 400, refused.text)
      assert.strictEqual(refused.body.code, "invalid_request")
      const fine = lone.replace("\\ud800", "")
      const accepted = yield* send("POST", "/api/store-notifications/google", { body: googlePush(fine, "m-fine"), headers: { authorization: "Bearer good-push-token" } })
      assert.strictEqual(accepted.status, 200, accepted.text)
      const stored = Array.from((yield* Effect.flatMap(MemoryStore, (m) => Ref.get(m.state))).storeNotifications.values()).map((n) => n.externalId)
      assert.deepStrictEqual(stored, ["m-fine"])
    }).pipe(Effect.provide(App)))

  it.live("a 202 pending sync carries Retry-After and a syncId to follow until the worker has processed it", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const sub = subscription("h-3000")
      yield* scriptApple("h-3000", sub.statuses)
      yield* storeDown(true)
      const pending = yield* sendJson("POST", "/api/mobile/purchases/sync", team.admin.token, { store: "app_store", signedTransaction: sub.signed })
      yield* storeDown(false)
      assert.strictEqual(pending.status, 202, pending.text)
      assert.strictEqual(pending.headers["retry-after"], "60")
      assert.deepInclude(pending.body, { status: "pending", retryAfterSeconds: 60 })
      const syncId = String(pending.body.syncId)
      assert.match(syncId, /^sn_/)
      const followed = yield* send("GET", `/api/mobile/purchases/syncs/${syncId}`, { key: team.member.token })
      assert.strictEqual(followed.status, 200, followed.text)
      assert.deepInclude(followed.body, { id: syncId, status: "pending", outcome: null })
      assert.match(followed.headers["retry-after"] ?? "", /^[0-9]+$/)
      const other = yield* seedTeam
      const hidden = yield* send("GET", `/api/mobile/purchases/syncs/${syncId}`, { key: other.owner.token })
      assert.strictEqual(hidden.status, 404, hidden.text)
    }).pipe(Effect.provide(App)))
})
