import { assert, describe, it } from "@effect/vitest"
import { Entitlements, Feature, FeatureCatalog, systemActor, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { DateTime, Effect, Option, Predicate, Ref } from "effect"
import { TestClock } from "effect/testing"

const actor = systemActor("test")

describe("Entitlements", () => {
  it.effect("lists grants in force, drops them at expiry, and emits entitlement.granted", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create({ name: "Acme", actor })
      const entitlements = yield* Entitlements
      const now = yield* DateTime.now
      yield* entitlements.grant({ workspaceId: workspace.id, feature: Feature.make("ai.basic"), source: "plan", actor })
      yield* entitlements.grant({
        workspaceId: workspace.id,
        feature: Feature.make("ai.advanced"),
        source: "trial",
        expiresAt: DateTime.add(now, { days: 14 }),
        actor
      })
      assert.deepStrictEqual((yield* entitlements.active(workspace.id)).map((e) => e.feature), ["ai.advanced", "ai.basic"])
      yield* TestClock.adjust("14 days")
      assert.deepStrictEqual((yield* entitlements.active(workspace.id)).map((e) => e.feature), ["ai.basic"])
      const events = (yield* Ref.get((yield* MemoryStore).state)).events
      assert.deepStrictEqual(events.map((e) => e.type), ["entitlement.granted", "entitlement.granted"])
      assert.deepStrictEqual(events[1]?.data, { feature: "ai.advanced", source: "trial", expiresAt: "1970-01-15T00:00:00.000Z", purchaseId: null })
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("grants are per workspace", () =>
    Effect.gen(function*() {
      const a = yield* (yield* Workspaces).create({ name: "A", actor })
      const b = yield* (yield* Workspaces).create({ name: "B", actor })
      yield* (yield* Entitlements).grant({ workspaceId: a.id, feature: Feature.make("ai.basic"), source: "plan", actor })
      assert.deepStrictEqual(yield* (yield* Entitlements).active(b.id), [])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a purchase's grant and a manual grant of one feature live side by side; ending one leaves the other", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create({ name: "Acme", actor })
      const entitlements = yield* Entitlements
      const now = yield* DateTime.now
      const pro = Feature.make("ai.advanced")
      yield* entitlements.grant({ workspaceId: workspace.id, feature: pro, source: "manual", actor })
      const first = yield* entitlements.reconcileSource({
        workspaceId: workspace.id,
        source: "purchase",
        sourceRef: "pur_1",
        grants: [{ feature: pro, expiresAt: Option.some(DateTime.add(now, { days: 30 })) }],
        actor
      })
      assert.strictEqual(first.granted.length, 1)
      assert.deepStrictEqual((yield* entitlements.active(workspace.id)).map((e) => [e.feature, e.source, e.purchaseId]), [
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
      assert.deepStrictEqual((yield* entitlements.active(workspace.id)).map((e) => e.source), ["manual"])
      const events = (yield* Ref.get((yield* MemoryStore).state)).events
      assert.deepStrictEqual(events.map((e) => [e.type, Predicate.hasProperty(e.data, "purchaseId") ? e.data.purchaseId : "missing"]), [
        ["entitlement.granted", null],
        ["entitlement.granted", "pur_1"],
        ["entitlement.revoked", "pur_1"]
      ])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("revoking by source ends only that source's grant; revoking without one ends them all", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create({ name: "Acme", actor })
      const entitlements = yield* Entitlements
      const pro = Feature.make("ai.advanced")
      yield* entitlements.grant({ workspaceId: workspace.id, feature: pro, source: "manual", actor })
      yield* entitlements.grant({ workspaceId: workspace.id, feature: pro, source: "trial", actor })
      yield* entitlements.revoke({ workspaceId: workspace.id, feature: pro, source: "trial", actor })
      assert.deepStrictEqual((yield* entitlements.active(workspace.id)).map((e) => e.source), ["manual"])
      yield* entitlements.grant({ workspaceId: workspace.id, feature: pro, source: "trial", actor })
      assert.strictEqual((yield* entitlements.revoke({ workspaceId: workspace.id, feature: pro, actor })).length, 2)
      assert.deepStrictEqual(yield* entitlements.active(workspace.id), [])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("one feature catalog, contributed by every area: each model's feature and domains.custom are granted; an unknown one is invalid input and grants nothing", () =>
    Effect.gen(function*() {
      const catalog = yield* FeatureCatalog
      assert.deepStrictEqual(catalog.list.map((spec) => spec.feature), ["ai.basic", "ai.standard", "ai.advanced", "domains.custom"])
      const workspace = yield* (yield* Workspaces).create({ name: "Acme", actor })
      const entitlements = yield* Entitlements
      yield* entitlements.grant({ workspaceId: workspace.id, feature: Feature.make("domains.custom"), source: "manual", actor })
      const refused = yield* Effect.flip(entitlements.grant({ workspaceId: workspace.id, feature: Feature.make("domains.customs"), source: "manual", actor }))
      assert.strictEqual(refused._tag, "InvalidInput")
      assert.match(refused._tag === "InvalidInput" ? refused.detail : "", /^unknown feature "domains.customs"; the catalog knows ai.basic, ai.standard, ai.advanced, domains.custom$/)
      assert.deepStrictEqual((yield* entitlements.active(workspace.id)).map((e) => e.feature), ["domains.custom"])
    }).pipe(Effect.provide(Domain.layerMemory)))
})
