import { assert, describe, it } from "@effect/vitest"
import { systemActor, Transactor, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { Effect, Ref } from "effect"

const actor = systemActor("test")

describe("Workspaces", () => {
  it.effect("derives unique slugs from names and refuses a taken explicit slug", () =>
    Effect.gen(function*() {
      const workspaces = yield* Workspaces
      const first = yield* workspaces.create({ name: "Acme Corp!", actor })
      const second = yield* workspaces.create({ name: "Acme Corp!", actor })
      assert.strictEqual(first.slug, "acme-corp")
      assert.match(second.slug, /^acme-corp-[a-z0-9]{8}$/)
      const taken = yield* workspaces.create({ name: "Other", slug: "acme-corp", actor }).pipe(Effect.flip)
      assert.strictEqual(taken._tag, "Conflict")
      const invalid = yield* workspaces.create({ name: "Other", slug: "Not A Slug", actor }).pipe(Effect.flip)
      assert.strictEqual(invalid._tag, "InvalidInput")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a failed transaction leaves no state, audit entry or event behind", () =>
    Effect.gen(function*() {
      const workspaces = yield* Workspaces
      const tx = yield* Transactor
      const store = yield* MemoryStore
      const outcome = yield* tx.withTransaction(
        Effect.gen(function*() {
          yield* workspaces.create({ name: "Doomed", actor })
          return yield* Effect.fail("boom" as const)
        })
      ).pipe(Effect.flip)
      assert.strictEqual(outcome, "boom")
      const state = yield* Ref.get(store.state)
      assert.strictEqual(state.workspaces.size, 0)
      assert.deepStrictEqual(state.audit, [])
      assert.strictEqual(yield* workspaces.count, 0)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
