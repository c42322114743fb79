import { assert, describe, it } from "@effect/vitest"
import { Appearance, appearanceEtag, defaultAppearance, parseAppearanceEtag } from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { principalOf, signUp, team } from "../support/identity.ts"

const dark = { ...defaultAppearance, theme: "dark", accentColor: "#112233", extras: { fontFamily: "serif", columns: 2, haptics: true } }

describe("Appearance", () => {
  it.effect("starts at the default, version 0, and each save is the next version", () =>
    Effect.gen(function*() {
      const { session } = yield* signUp("ada@example.com")
      const principal = yield* principalOf(session)
      const appearance = yield* Appearance
      const initial = yield* appearance.get(principal)
      assert.deepStrictEqual(initial.bundle, defaultAppearance)
      assert.strictEqual(initial.version, 0)
      yield* TestClock.adjust("1 minute")
      const saved = yield* appearance.put(principal, dark, Option.some(0))
      assert.strictEqual(saved.version, 1)
      assert.isTrue(Option.isSome(saved.updatedAt))
      const read = yield* appearance.get(principal)
      assert.deepStrictEqual(read.bundle, saved.bundle)
      assert.strictEqual(appearanceEtag(read.version), "\"v1\"")
      assert.deepStrictEqual(parseAppearanceEtag(appearanceEtag(read.version)), Option.some(1))
      assert.deepStrictEqual(parseAppearanceEtag("W/\"v1\""), Option.some(1))
      assert.isTrue(Option.isNone(parseAppearanceEtag("*")))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a stale If-Match is precondition_failed and the newer bundle is kept", () =>
    Effect.gen(function*() {
      const { session } = yield* signUp("ada@example.com")
      const principal = yield* principalOf(session)
      const appearance = yield* Appearance
      // Two devices read version 0; the phone saves first.
      yield* appearance.put(principal, dark, Option.some(0))
      const error = yield* appearance.put(principal, { ...defaultAppearance, theme: "light" }, Option.some(0)).pipe(Effect.flip)
      assert.strictEqual(error._tag, "PreconditionFailed")
      if (error._tag === "PreconditionFailed") {
        assert.strictEqual(error.code, "precondition_failed")
        assert.strictEqual(error.currentVersion, 1)
      }
      const kept = yield* appearance.get(principal)
      assert.strictEqual(kept.bundle.theme, "dark")
      assert.strictEqual(kept.version, 1)
      const retried = yield* appearance.put(principal, { ...defaultAppearance, theme: "light" }, Option.some(1))
      assert.strictEqual(retried.version, 2)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("refuses invalid bundles and oversized extras without writing", () =>
    Effect.gen(function*() {
      const { session } = yield* signUp("ada@example.com")
      const principal = yield* principalOf(session)
      const appearance = yield* Appearance
      const refused = (bundle: unknown) => appearance.put(principal, bundle, Option.none()).pipe(Effect.flip, Effect.map((e) => e.code))
      const tooMany = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]))
      assert.strictEqual(yield* refused({ ...defaultAppearance, accentColor: "blue" }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, textScalePercent: 250 }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, textScalePercent: 100.5 }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, theme: "neon" }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, extras: tooMany }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, extras: { ["k".repeat(65)]: 1 } }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, extras: { note: "x".repeat(257) } }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, extras: { nested: { a: 1 } } }), "invalid_request")
      assert.strictEqual(yield* refused({ ...defaultAppearance, extras: { n: Number.POSITIVE_INFINITY } }), "invalid_request")
      assert.strictEqual((yield* appearance.get(principal)).version, 0)
      const ok = yield* appearance.put(principal, { ...defaultAppearance, extras: Object.fromEntries(Object.entries(tooMany).slice(0, 32)) }, Option.none())
      assert.strictEqual(ok.version, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("is per member and per workspace", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      const appearance = yield* Appearance
      yield* appearance.put(bob.principal, dark, Option.some(0))
      assert.strictEqual((yield* appearance.get(ownerPrincipal)).version, 0)
      const personal = yield* principalOf(bob.session).pipe(Effect.map((p) => p.workspaceId))
      assert.strictEqual(personal, bob.principal.workspaceId)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
