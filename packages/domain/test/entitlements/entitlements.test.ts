import { assert, describe, it } from "@effect/vitest"
import { Entitlements, Feature, FeatureCatalog, systemActor, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Option, Predicate, Ref } from "effect"
import { TestClock } from "effect/testing"

const actor = systemActor("test")

describe("Entitlements", () => {
  it.effect("lists grants in force, drops them at expiry, and emits entitlement.granted", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const entitlements = yield* Entitlements
      const now = yield* DateTime.now
      yield* entitlements.grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
      yield* entitlements.grant(systemPrincipal(workspace.id), {
        feature: Feature.make("ai.advanced"),
        source: "trial",
        expiresAt: DateTime.add(now, { days: 14 })
      })
      assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(workspace.id))).map((e) => e.feature), ["ai.advanced", "ai.basic"])
      yield* TestClock.adjust("14 days")
      assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(workspace.id))).map((e) => e.feature), ["ai.basic"])
      const events = (yield* Ref.get((yield* MemoryStore).state)).events
      assert.deepStrictEqual(events.map((e) => e.type), ["entitlement.granted", "entitlement.granted"])
      assert.deepStrictEqual(events[1]?.data, { feature: "ai.advanced", source: "trial", expiresAt: "1970-01-15T00:00:00.000Z", purchaseId: null })
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("grants are per workspace", () =>
    Effect.gen(function*() {
      const a = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "A" })
      const b = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "B" })
      yield* (yield* Entitlements).grant(systemPrincipal(a.id), { feature: Feature.make("ai.basic"), source: "plan" })
      assert.deepStrictEqual(yield* (yield* Entitlements).active(systemPrincipal(b.id)), [])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a purchase's grant and a manual grant of one feature live side by side; ending one leaves the other", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const entitlements = yield* Entitlements
      const now = yield* DateTime.now
      const pro = Feature.make("ai.advanced")
      yield* entitlements.grant(systemPrincipal(workspace.id), { feature: pro, source: "manual" })
      const first = yield* entitlements.reconcileSource({
        workspaceId: workspace.id,
        source: "purchase",
        sourceRef: "pur_1",
        grants: [{ feature: pro, expiresAt: Option.some(DateTime.add(now, { days: 30 })) }],
        actor
      })
      assert.strictEqual(first.granted.length, 1)
      assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(workspace.id))).map((e) => [e.feature, e.source, e.purchaseId]), [
        ["ai.advanced", "manual", null],
        ["ai.advanced", "purchase", "pur_1"]
      ])
      // The same state again changes nothing and emits nothing.
      const again = yield* entitlements.reconcileSource({
        workspaceId: workspace.id,
        source: "purchase",
        sourceRef: "pur_1",
        grants: [{ feature: pro, expiresAt: Option.some(DateTime.add(now, { days: 30 })) }],
        actor
      })
      assert.deepStrictEqual([again.granted.length, again.revoked.length], [0, 0])
      const ended = yield* entitlements.reconcileSource({ workspaceId: workspace.id, source: "purchase", sourceRef: "pur_1", grants: [], actor })
      assert.deepStrictEqual(ended.revoked.map((e) => e.purchaseId), ["pur_1"])
      assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(workspace.id))).map((e) => e.source), ["manual"])
      const events = (yield* Ref.get((yield* MemoryStore).state)).events
      assert.deepStrictEqual(events.map((e) => [e.type, Predicate.hasProperty(e.data, "purchaseId") ? e.data.purchaseId : "missing"]), [
        ["entitlement.granted", null],
        ["entitlement.granted", "pur_1"],
        ["entitlement.revoked", "pur_1"]
      ])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("revoking by source ends only that source's grant; revoking without one ends them all", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const entitlements = yield* Entitlements
      const pro = Feature.make("ai.advanced")
      yield* entitlements.grant(systemPrincipal(workspace.id), { feature: pro, source: "manual" })
      yield* entitlements.grant(systemPrincipal(workspace.id), { feature: pro, source: "trial" })
      yield* entitlements.revoke(systemPrincipal(workspace.id), { feature: pro, source: "trial" })
      assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(workspace.id))).map((e) => e.source), ["manual"])
      yield* entitlements.grant(systemPrincipal(workspace.id), { feature: pro, source: "trial" })
      assert.strictEqual((yield* entitlements.revoke(systemPrincipal(workspace.id), { feature: pro })).length, 2)
      assert.deepStrictEqual(yield* entitlements.active(systemPrincipal(workspace.id)), [])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("one feature catalog, contributed by every area: each model's feature and domains.custom are granted; an unknown one is invalid input and grants nothing", () =>
    Effect.gen(function*() {
      const catalog = yield* FeatureCatalog
      assert.deepStrictEqual(catalog.list.map((spec) => spec.feature), ["ai.basic", "ai.standard", "ai.advanced", "domains.custom"])
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const entitlements = yield* Entitlements
      yield* entitlements.grant(systemPrincipal(workspace.id), { feature: Feature.make("domains.custom"), source: "manual" })
      const refused = yield* Effect.flip(entitlements.grant(systemPrincipal(workspace.id), { feature: Feature.make("domains.customs"), source: "manual" }))
      assert.strictEqual(refused._tag, "InvalidInput")
      assert.match(refused._tag === "InvalidInput" ? refused.detail : "", /^unknown feature "domains.customs"; the catalog knows ai.basic, ai.standard, ai.advanced, domains.custom$/)
      assert.deepStrictEqual((yield* entitlements.active(systemPrincipal(workspace.id))).map((e) => e.feature), ["domains.custom"])
    }).pipe(Effect.provide(Domain.layerMemory)))
})
