import { assert, describe, it } from "@effect/vitest"
import { Accounts, Members, Organization, WorkspaceId } from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { Effect, Option } from "effect"
import { signUp, team } from "../support/identity.ts"

describe("Organization", () => {
  it.effect("shows the active workspace, the role in it and every membership", () =>
    Effect.gen(function*() {
      const { workspace, join } = yield* team
      const bob = yield* join("bob@example.com", "admin")
      const session = yield* (yield* Accounts).authenticateSession(bob.session.accessToken)
      const view = yield* (yield* Organization).view(session)
      assert.deepStrictEqual(Option.map(view.workspace, (w) => w.id), Option.some(workspace.id))
      assert.deepStrictEqual(view.role, Option.some("admin"))
      const roles = new Map(view.memberships.map((m) => [m.workspace.id, m.membership.role]))
      assert.deepStrictEqual(roles, new Map([[bob.workspace.id, "owner"], [workspace.id, "admin"]]))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("switches only to a workspace the member belongs to; others, existing or not, are not found", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const organization = yield* Organization
      const ada = yield* signUp("ada@example.com")
      const bob = yield* signUp("bob@example.com")
      const session = yield* accounts.authenticateSession(ada.session.accessToken)
      const foreign = yield* organization.switchActive(session, bob.workspace.id).pipe(Effect.flip)
      const missing = yield* organization.switchActive(session, WorkspaceId.make("ws_missing")).pipe(Effect.flip)
      assert.deepStrictEqual(foreign, missing)
      assert.strictEqual(foreign._tag, "NotFound")
      const principal = yield* accounts.authenticate(ada.session.accessToken)
      assert.strictEqual(principal.workspaceId, ada.workspace.id)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("after a switch every request acts in the new workspace with the role there", () =>
    Effect.gen(function*() {
      const { workspace, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      assert.strictEqual(bob.principal.workspaceId, workspace.id)
      assert.strictEqual(bob.principal.role, "member")
      const accounts = yield* Accounts
      const session = yield* accounts.authenticateSession(bob.session.accessToken)
      yield* (yield* Organization).switchActive(session, bob.workspace.id)
      const back = yield* accounts.authenticate(bob.session.accessToken)
      assert.strictEqual(back.workspaceId, bob.workspace.id)
      assert.strictEqual(back.role, "owner")
      // A refresh keeps the active workspace.
      const refreshed = yield* accounts.refresh(bob.session.refreshToken)
      assert.strictEqual((yield* accounts.authenticate(refreshed.accessToken)).workspaceId, bob.workspace.id)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a removed member still sees their memberships, with no active workspace, and can switch away", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      yield* (yield* Members).remove(ownerPrincipal, bob.membership.id)
      const accounts = yield* Accounts
      const session = yield* accounts.authenticateSession(bob.session.accessToken)
      const view = yield* (yield* Organization).view(session)
      assert.isTrue(Option.isNone(view.workspace))
      assert.isTrue(Option.isNone(view.role))
      assert.deepStrictEqual(view.memberships.map((m) => m.workspace.id), [bob.workspace.id])
      yield* (yield* Organization).switchActive(session, bob.workspace.id)
      yield* accounts.authenticate(bob.session.accessToken)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
