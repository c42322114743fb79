import { assert, describe, it } from "@effect/vitest"
import { Accounts, Invitations, Members, Membership, Organization } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { Effect, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import { signUp, team } from "../support/identity.ts"

const viewOf = (accessToken: Parameters<Accounts["Service"]["authenticateSession"]>[0]) =>
  Effect.gen(function*() {
    const session = yield* (yield* Accounts).authenticateSession(accessToken)
    return yield* (yield* Organization).view(session)
  })

describe("organization cache (each user's workspaces, ≤ 1 s)", () => {
  it.effect("serves the organization from memory within the second; past it, the store is asked again", () =>
    Effect.gen(function*() {
      const { join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      const first = yield* viewOf(bob.session.accessToken)
      yield* Ref.set((yield* MemoryStore).down, true)
      assert.deepStrictEqual(yield* viewOf(bob.session.accessToken), first)
      yield* TestClock.adjust("1001 millis")
      assert.strictEqual((yield* Effect.flip(viewOf(bob.session.accessToken)))._tag, "Unavailable")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a role change and a removal in this process show at once", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, workspace, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      assert.deepStrictEqual((yield* viewOf(bob.session.accessToken)).role, Option.some("member"))
      const members = yield* Members
      yield* members.changeRole(ownerPrincipal, bob.membership.id, "admin")
      assert.deepStrictEqual((yield* viewOf(bob.session.accessToken)).role, Option.some("admin"))
      yield* members.remove(ownerPrincipal, bob.membership.id)
      const removed = yield* viewOf(bob.session.accessToken)
      assert.isTrue(Option.isNone(removed.role))
      assert.isFalse(removed.memberships.some((m) => m.workspace.id === workspace.id))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("joining another workspace in this process shows at once", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, workspace } = yield* team
      const bob = yield* signUp("bob@example.com")
      assert.deepStrictEqual((yield* viewOf(bob.session.accessToken)).memberships.map((m) => m.workspace.id), [bob.workspace.id])
      // A later join lists after the own workspace (oldest first); equal times would order by random id. Well within the TTL.
      yield* TestClock.adjust("1 millis")
      const invitations = yield* Invitations
      const invited = yield* invitations.create(ownerPrincipal, { email: "bob@example.com", role: "member" })
      yield* invitations.accept(bob.user.id, invited.token)
      assert.deepStrictEqual((yield* viewOf(bob.session.accessToken)).memberships.map((m) => m.workspace.id), [bob.workspace.id, workspace.id])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a change by another process (behind this cache) shows within 1 s", () =>
    Effect.gen(function*() {
      const { join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      assert.deepStrictEqual((yield* viewOf(bob.session.accessToken)).role, Option.some("member"))
      const store = yield* MemoryStore
      yield* Ref.update(store.state, (state) => ({
        ...state,
        memberships: new Map([...state.memberships].map(([id, m]) => [id, id === bob.membership.id ? new Membership({ ...m, role: "admin" }) : m] as const))
      }))
      assert.deepStrictEqual((yield* viewOf(bob.session.accessToken)).role, Option.some("member"))
      yield* TestClock.adjust("1001 millis")
      assert.deepStrictEqual((yield* viewOf(bob.session.accessToken)).role, Option.some("admin"))
    }).pipe(Effect.provide(Domain.layerMemory)))
})
