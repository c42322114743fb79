import { assert, describe, it } from "@effect/vitest"
import { Entitlements, Feature, systemActor, Workspaces } from "@atrium/domain"
import { DomainMemory, MemoryStore } from "@atrium/domain/testing"
import { DateTime, Effect, Ref } from "effect"
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
      assert.deepStrictEqual(events[1]?.data, { feature: "ai.advanced", source: "trial", expiresAt: "1970-01-15T00:00:00.000Z" })
    }).pipe(Effect.provide(DomainMemory)))

  it.effect("grants are per workspace", () =>
    Effect.gen(function*() {
      const a = yield* (yield* Workspaces).create({ name: "A", actor })
      const b = yield* (yield* Workspaces).create({ name: "B", actor })
      yield* (yield* Entitlements).grant({ workspaceId: a.id, feature: Feature.make("ai.basic"), source: "plan", actor })
      assert.deepStrictEqual(yield* (yield* Entitlements).active(b.id), [])
    }).pipe(Effect.provide(DomainMemory)))
})
