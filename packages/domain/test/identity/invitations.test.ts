import { assert, describe, it } from "@effect/vitest"
import { Accounts, Invitations, Members } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { Effect, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { signUp, team } from "../support/identity.ts"

const page = { limit: 20, cursor: undefined }
const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))

describe("Invitations", () => {
  it.effect("an invitation's token is returned once, stored as a digest, and joins the matching user with the role", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, workspace } = yield* team
      const invitations = yield* Invitations
      const { invitation, token } = yield* invitations.create(ownerPrincipal, { email: " Carol@Example.com", role: "admin" })
      assert.match(Redacted.value(token), /^it_[0-9A-Za-z]{33}$/)
      assert.strictEqual(invitation.email, "Carol@example.com")
      assert.strictEqual(invitation.statusAt(invitation.createdAt), "pending")
      const carol = yield* signUp("carol@example.com")
      const accepted = yield* invitations.accept(carol.user.id, token)
      assert.strictEqual(accepted.membership.workspaceId, workspace.id)
      assert.strictEqual(accepted.membership.role, "admin")
      const s = yield* state
      assert.notInclude(JSON.stringify(Array.from(s.invitations.values())), Redacted.value(token))
      assert.notInclude(JSON.stringify(s.events), invitation.tokenDigest)
      const teamEvents = s.events.filter((e) => e.workspaceId === workspace.id).map((e) => e.type)
      assert.deepStrictEqual(teamEvents, ["member.joined", "invitation.created", "invitation.accepted", "member.joined"])
      const acceptedEvent = s.events.find((e) => e.type === "invitation.accepted")
      assert.deepStrictEqual(acceptedEvent?.data, {
        invitation: { id: invitation.id, email: "Carol@example.com", role: "admin", expiresAt: "1970-01-08T00:00:00.000Z" },
        member: { id: accepted.membership.id, userId: carol.user.id, role: "admin" }
      })
      const listed = yield* invitations.list(ownerPrincipal, page)
      assert.deepStrictEqual(listed.data.map(({ invitation: i }) => i.statusAt(i.createdAt)), ["accepted"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("expires after 7 days", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      const invitations = yield* Invitations
      const { token } = yield* invitations.create(ownerPrincipal, { email: "carol@example.com", role: "member" })
      const carol = yield* signUp("carol@example.com")
      yield* TestClock.adjust("7 days")
      const error = yield* invitations.accept(carol.user.id, token).pipe(Effect.flip)
      assert.strictEqual(error._tag, "Conflict")
      assert.strictEqual((yield* state).memberships.size, 2)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a revoked invitation is not found; revoking twice is harmless; an accepted one cannot be revoked", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      const invitations = yield* Invitations
      const first = yield* invitations.create(ownerPrincipal, { email: "carol@example.com", role: "member" })
      yield* invitations.revoke(ownerPrincipal, first.invitation.id)
      yield* invitations.revoke(ownerPrincipal, first.invitation.id)
      const carol = yield* signUp("carol@example.com")
      assert.strictEqual((yield* invitations.accept(carol.user.id, first.token).pipe(Effect.flip))._tag, "NotFound")
      const second = yield* invitations.create(ownerPrincipal, { email: "carol@example.com", role: "member" })
      yield* invitations.accept(carol.user.id, second.token)
      assert.strictEqual((yield* invitations.revoke(ownerPrincipal, second.invitation.id).pipe(Effect.flip))._tag, "Conflict")
      const s = yield* state
      assert.strictEqual(s.audit.filter((e) => e.action === "invitation.revoked").length, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a user whose email is not the invitation's is forbidden, and nothing changes", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      const invitations = yield* Invitations
      const { token } = yield* invitations.create(ownerPrincipal, { email: "carol@example.com", role: "member" })
      const mallory = yield* signUp("mallory@example.com")
      const before = yield* state
      assert.strictEqual((yield* invitations.accept(mallory.user.id, token).pipe(Effect.flip))._tag, "Forbidden")
      const after = yield* state
      assert.strictEqual(after.memberships.size, before.memberships.size)
      assert.strictEqual(after.events.length, before.events.length)
      // The rightful invitee can still accept.
      const carol = yield* signUp("CAROL@example.com")
      yield* invitations.accept(carol.user.id, token)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("an accepted invitation cannot be accepted again; unknown and malformed tokens are not found", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      const invitations = yield* Invitations
      const { token } = yield* invitations.create(ownerPrincipal, { email: "carol@example.com", role: "member" })
      const carol = yield* signUp("carol@example.com")
      yield* invitations.accept(carol.user.id, token)
      assert.strictEqual((yield* invitations.accept(carol.user.id, token).pipe(Effect.flip))._tag, "Conflict")
      assert.strictEqual((yield* invitations.accept(carol.user.id, Redacted.make(`it_${"a".repeat(33)}`)).pipe(Effect.flip))._tag, "NotFound")
      assert.strictEqual((yield* invitations.accept(carol.user.id, Redacted.make("nonsense")).pipe(Effect.flip))._tag, "NotFound")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("admins invite members and admins but not owners; members invite nobody; existing members are a conflict", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const invitations = yield* Invitations
      const admin = yield* join("admin@example.com", "admin")
      const bob = yield* join("bob@example.com", "member")
      yield* invitations.create(admin.principal, { email: "x@example.com", role: "admin" })
      assert.strictEqual((yield* invitations.create(admin.principal, { email: "y@example.com", role: "owner" }).pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* invitations.create(bob.principal, { email: "y@example.com", role: "member" }).pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* invitations.list(bob.principal, page).pipe(Effect.flip))._tag, "Forbidden")
      assert.strictEqual((yield* invitations.create(ownerPrincipal, { email: "BOB@example.com", role: "admin" }).pipe(Effect.flip))._tag, "Conflict")
      assert.strictEqual((yield* invitations.create(ownerPrincipal, { email: "nope", role: "admin" }).pipe(Effect.flip))._tag, "InvalidInput")
      yield* invitations.create(ownerPrincipal, { email: "y@example.com", role: "owner" })
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("someone removed can be invited and join again", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      yield* (yield* Members).remove(ownerPrincipal, bob.membership.id)
      const again = yield* (yield* Invitations).create(ownerPrincipal, { email: "bob@example.com", role: "member" })
      yield* (yield* Invitations).accept(bob.user.id, again.token)
      yield* (yield* Accounts).authenticate(bob.session.accessToken)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
