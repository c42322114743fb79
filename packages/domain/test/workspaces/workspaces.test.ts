import { assert, describe, it } from "@effect/vitest"
import { Transactor, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore, operatorPrincipal } from "@atrium/domain/testing"
import { Effect, Ref } from "effect"

describe("Workspaces", () => {
  it.effect("derives unique slugs from names and refuses a taken explicit slug", () =>
    Effect.gen(function*() {
      const workspaces = yield* Workspaces
      const first = yield* workspaces.create(operatorPrincipal(), { name: "Acme Corp!" })
      const second = yield* workspaces.create(operatorPrincipal(), { name: "Acme Corp!" })
      assert.strictEqual(first.slug, "acme-corp")
      assert.match(second.slug, /^acme-corp-[a-z0-9]{8}$/)
      const taken = yield* workspaces.create(operatorPrincipal(), { name: "Other", slug: "acme-corp" }).pipe(Effect.flip)
      assert.strictEqual(taken._tag, "Conflict")
      const invalid = yield* workspaces.create(operatorPrincipal(), { name: "Other", slug: "Not A Slug" }).pipe(Effect.flip)
      assert.strictEqual(invalid._tag, "InvalidInput")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a failed transaction leaves no state, audit entry or event behind", () =>
    Effect.gen(function*() {
      const workspaces = yield* Workspaces
      const tx = yield* Transactor
      const store = yield* MemoryStore
      const outcome = yield* tx.withTransaction(
        Effect.gen(function*() {
          yield* workspaces.create(operatorPrincipal(), { name: "Doomed" })
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
