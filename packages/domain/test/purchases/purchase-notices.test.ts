import { assert, describe, it } from "@effect/vitest"
import {
  Entitlements,
  Feature,
  observationOf,
  Purchases,
  SecretBox,
  SessionId,
  SessionPrincipal,
  type StoreProduct,
  Stores,
  type StoreVerdict,
  UserId,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { Domain as Testing, fakeNotice, FakeStores, MemoryStore, operatorPrincipal, StoresMemory, systemPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Layer, Logger, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"

const pro = Feature.make("ai.advanced")
const products: ReadonlyArray<StoreProduct> = [
  { store: "app_store", productId: "pro.monthly", kind: "subscription", features: [pro] },
  { store: "play_store", productId: "pro_monthly", kind: "subscription", features: [pro] }
]

const verdict = (input: { storeRef: string; at: DateTime.Utc; accountToken?: string; withdrawn?: "refunded" | "revoked" }): StoreVerdict => {
  const expiresAt = Option.some(DateTime.add(input.at, { days: 30 }))
  return {
    store: "app_store",
    environment: "production",
    storeRef: input.storeRef,
    productId: "pro.monthly",
    transactionId: `${input.storeRef}-1`,
    storeTime: input.at,
    accountToken: Option.fromNullishOr(input.accountToken),
    refundReversed: false,
    withdrawn: Option.fromNullishOr(input.withdrawn),
    expiresAt,
    subscription: { status: "grace_period", autoRenew: true, expiresAt: Option.some(DateTime.add(input.at, { days: 33 })) }
  }
}

const newWorkspace = Effect.flatMap(Workspaces, (w) => w.create(operatorPrincipal(), { name: "Acme" })).pipe(Effect.map((w) => w.id))
const features = (workspaceId: WorkspaceId) => Effect.flatMap(Entitlements, (e) => e.active(systemPrincipal(workspaceId))).pipe(Effect.map((grants) => grants.map((g) => g.feature)))
const drainInbox = Effect.gen(function*() {
  const purchases = yield* Purchases
  const claimed = yield* purchases.inboxQueue.claim(100)
  for (const item of claimed) yield* purchases.inboxQueue.step(item)
  return claimed.length
})

describe("a store's verdict, read for a product's kind", () => {
  it("a subscription follows its renewal state; a one-time product is active; a withdrawal stands for either", () => {
    const at = DateTime.makeUnsafe(Date.UTC(2030, 0, 1))
    const renewing = verdict({ storeRef: "1", at })
    assert.deepStrictEqual(
      [observationOf(renewing, "subscription").status, observationOf(renewing, "subscription").expiresAt, observationOf(renewing, "subscription").autoRenew],
      ["grace_period", renewing.subscription.expiresAt, true]
    )
    assert.deepStrictEqual([observationOf(renewing, "non_consumable").status, observationOf(renewing, "non_consumable").autoRenew], ["active", false])
    assert.deepStrictEqual(observationOf(renewing, "consumable").expiresAt, renewing.expiresAt)
    const refunded = verdict({ storeRef: "2", at, withdrawn: "refunded" })
    assert.deepStrictEqual([observationOf(refunded, "subscription").status, observationOf(refunded, "consumable").status], ["refunded", "refunded"])
    assert.deepStrictEqual(observationOf(refunded, "subscription").expiresAt, refunded.expiresAt)
  })
})

describe("store notices through the inbox", () => {
  const Domain = Testing.layerMemoryWith({ stores: { products, configured: ["app_store", "play_store"] } })

  it.effect("the inbox keeps the verified notice, sealed; the worker applies it without asking the store again", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const ws = yield* newWorkspace
      const purchases = yield* Purchases
      // The buyer's account link, as the app passes it to the store, ties the purchase to the workspace.
      const buyer = new SessionPrincipal({ sessionId: SessionId.make("ses_test"), userId: UserId.make("usr_buyer"), workspaceId: ws, role: "owner" })
      const token = (yield* purchases.availability(buyer, "ios")).appAccountToken ?? ""
      const notice = { _tag: "Observed" as const, verdict: verdict({ storeRef: "o-1", at: yield* DateTime.now, accountToken: token }) }
      yield* purchases.receive("app_store", fakeNotice({ externalId: "n-1", notice }))
      const [stored] = Array.from((yield* Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))).storeNotifications.values())
      assert.isFalse((stored?.sealedBody ?? "").includes("o-1"))
      const opened = Redacted.value(yield* (yield* SecretBox).open(stored?.sealedBody ?? ""))
      assert.include(opened, "\"_tag\":\"Observed\"")
      assert.strictEqual(yield* drainInbox, 1)
      assert.deepStrictEqual(yield* features(ws), [pro])
      assert.strictEqual((yield* Ref.get(yield* FakeStores)).calls, 0)
    }).pipe(Effect.provide(Domain)))
})

describe("worker faults", () => {
  const capture = (lines: Array<string>) => Logger.layer([Logger.formatJson.pipe(Logger.map((line) => void lines.push(line)))])

  // Stores whose read throws on one token: a fault nobody foresaw, inside one inbox item.
  const faulty = Layer.effect(
    Stores,
    Effect.gen(function*() {
      const fake = yield* Stores
      return Stores.of({
        ...fake,
        read: (lookup) => lookup.store === "play_store" && Redacted.value(lookup.token) === "boom" ? Effect.die(new URIError("URI malformed")) : fake.read(lookup)
      })
    })
  ).pipe(Layer.provideMerge(StoresMemory(["app_store", "play_store"])))

  it.effect("a fault in one inbox item is logged and backed off; the worker's step survives and the next item is processed", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const purchases = yield* Purchases
      yield* purchases.receive("play_store", fakeNotice({ externalId: "sn_boom", notice: { _tag: "Changed", store: "play_store", purchaseToken: "boom", productId: Option.some("pro_monthly") } }))
      yield* purchases.receive("play_store", fakeNotice({ externalId: "sn_ok", notice: { _tag: "Nothing" } }))
      assert.strictEqual(yield* drainInbox, 2)
      const stored = Array.from((yield* Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))).storeNotifications.values())
      const boom = stored.find((n) => n.externalId === "sn_boom")
      const ok = stored.find((n) => n.externalId === "sn_ok")
      assert.deepStrictEqual([Option.getOrNull(boom?.outcome ?? Option.none()), boom?.attempts], [null, 1])
      assert.strictEqual(Option.getOrNull(ok?.outcome ?? Option.none()), "ignored")
      assert.isTrue(lines.some((line) => line.includes("could not be processed") && line.includes("URIError")), lines.join("\n"))
    }).pipe(Effect.provide(Testing.layerMemoryWith({ stores: { products }, replace: faulty })), Effect.provide(capture(lines)))
  })
})
