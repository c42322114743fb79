import { assert, describe, it } from "@effect/vitest"
import { Members } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { Effect, Ref } from "effect"
import { team } from "../support/identity.ts"

const page = { limit: 20, cursor: undefined }
const events = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state)).pipe(Effect.map((s) => s.events.map((e) => e.type)))

describe("Members", () => {
  it.effect("lists members with their users; members may not", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      const listed = yield* (yield* Members).list(ownerPrincipal, page)
      // Everyone joined at the same TestClock instant, so compare without order.
      assert.deepStrictEqual(
        listed.data.map((m) => [m.user.email, m.membership.role]).sort(),
        [["bob@example.com", "member"], ["owner@example.com", "owner"]]
      )
      assert.strictEqual((yield* (yield* Members).list(bob.principal, page).pipe(Effect.flip))._tag, "Forbidden")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("admins change members' roles and emit member.role_changed with the previous role", () =>
    Effect.gen(function*() {
      const { join } = yield* team
      const admin = yield* join("admin@example.com", "admin")
      const bob = yield* join("bob@example.com", "member")
      const changed = yield* (yield* Members).changeRole(admin.principal, bob.membership.id, "admin")
      assert.strictEqual(changed.role, "admin")
      const state = yield* Ref.get((yield* MemoryStore).state)
      const last = state.events[state.events.length - 1]
      assert.strictEqual(last?.type, "member.role_changed")
      assert.deepStrictEqual(last?.data, { member: { id: bob.membership.id, userId: bob.user.id, role: "admin" }, previousRole: "member" })
      assert.strictEqual(state.audit[state.audit.length - 1]?.action, "member.role_changed")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("admins cannot demote, remove or create owners; members cannot manage anyone", () =>
    Effect.gen(function*() {
      const { owner, join } = yield* team
      const members = yield* Members
      const admin = yield* join("admin@example.com", "admin")
      const bob = yield* join("bob@example.com", "member")
      const before = yield* events
      assert.strictEqual((yield* members.changeRole(admin.principal, owner.membership.id, "admin").pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* members.remove(admin.principal, owner.membership.id).pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* members.changeRole(admin.principal, bob.membership.id, "owner").pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* members.changeRole(admin.principal, admin.membership.id, "owner").pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* members.changeRole(bob.principal, admin.membership.id, "member").pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* members.remove(bob.principal, admin.membership.id).pipe(Effect.flip))._tag, "Forbidden")
      assert.deepStrictEqual(yield* events, before)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the last owner cannot demote themselves or leave; with a second owner they can", () =>
    Effect.gen(function*() {
      const { owner, ownerPrincipal, join } = yield* team
      const members = yield* Members
      const demote = yield* members.changeRole(ownerPrincipal, owner.membership.id, "admin").pipe(Effect.flip)
      assert.strictEqual(demote._tag, "Conflict")
      const leave = yield* members.remove(ownerPrincipal, owner.membership.id).pipe(Effect.flip)
      assert.strictEqual(leave._tag, "Conflict")
      const second = yield* join("second@example.com", "owner")
      yield* members.changeRole(second.principal, owner.membership.id, "admin")
      // Now `second` is the only owner and the same rule protects them.
      assert.strictEqual((yield* members.remove(second.principal, second.membership.id).pipe(Effect.flip))._tag, "Conflict")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("an owner removes another owner; anyone may leave; removal emits member.removed", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const members = yield* Members
      const second = yield* join("second@example.com", "owner")
      const bob = yield* join("bob@example.com", "member")
      yield* members.remove(ownerPrincipal, second.membership.id)
      yield* members.remove(bob.principal, bob.membership.id)
      const types = yield* events
      assert.deepStrictEqual(types.slice(-2), ["member.removed", "member.removed"])
      const listed = yield* members.list(ownerPrincipal, page)
      assert.deepStrictEqual(listed.data.map((m) => m.user.email), ["owner@example.com"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a membership of another workspace is not found", () =>
    Effect.gen(function*() {
      const first = yield* team
      const members = yield* Members
      // Bob's own personal workspace membership, addressed from the team's workspace.
      const bob = yield* first.join("bob@example.com", "member")
      const own = yield* members.list(first.ownerPrincipal, page)
      assert.isTrue(own.data.every((m) => m.membership.workspaceId === first.workspace.id))
      const state = yield* Ref.get((yield* MemoryStore).state)
      const personal = Array.from(state.memberships.values()).find((m) => m.userId === bob.user.id && m.workspaceId !== first.workspace.id)
      assert.isDefined(personal)
      if (personal === undefined) return
      assert.strictEqual((yield* members.remove(first.ownerPrincipal, personal.id).pipe(Effect.flip))._tag, "NotFound")
      assert.strictEqual((yield* members.changeRole(first.ownerPrincipal, personal.id, "admin").pipe(Effect.flip))._tag, "NotFound")
    }).pipe(Effect.provide(Domain.layerMemory)))
})
