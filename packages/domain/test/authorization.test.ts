import { assert, describe, it } from "@effect/vitest"
import {
  authorize,
  leastRoleFor,
  MemberAction,
  Role,
  roleAllows,
  roleChangeAllowed,
  SessionId,
  SessionPrincipal,
  UserId,
  WorkspaceId
} from "@atrium/domain"
import { Effect } from "effect"

// The role × action matrix as the contract states it, written out by hand so a change to the table must change this too.
const expected: { readonly [A in MemberAction]: { readonly owner: boolean; readonly admin: boolean; readonly member: boolean } } = {
  "workspace.read": { owner: true, admin: true, member: true },
  "usage.read": { owner: true, admin: true, member: true },
  "entitlement.read": { owner: true, admin: true, member: true },
  "appearance.read": { owner: true, admin: true, member: true },
  "appearance.write": { owner: true, admin: true, member: true },
  "ai_task.submit": { owner: true, admin: true, member: true },
  "feature_request.submit": { owner: true, admin: true, member: true },
  "api_key.manage": { owner: true, admin: true, member: false },
  "webhook.manage": { owner: true, admin: true, member: false },
  "invitation.manage": { owner: true, admin: true, member: false },
  "member.manage": { owner: true, admin: true, member: false },
  "domain.manage": { owner: true, admin: true, member: false },
  "schedule.manage": { owner: true, admin: true, member: false },
  "audit.read": { owner: true, admin: true, member: false },
  "purchase.read": { owner: true, admin: true, member: true },
  "purchase.manage": { owner: true, admin: true, member: false },
  "owner.manage": { owner: true, admin: false, member: false }
}

const principal = (role: Role) =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_1"), userId: UserId.make("usr_1"), workspaceId: WorkspaceId.make("ws_1"), role })

describe("role policy", () => {
  it("covers every action of the schema, and nothing else", () => {
    assert.deepStrictEqual(Object.keys(leastRoleFor).sort(), [...MemberAction.literals].sort())
    assert.deepStrictEqual(Object.keys(expected).sort(), [...MemberAction.literals].sort())
  })

  for (const action of MemberAction.literals) {
    for (const role of Role.literals) {
      const allowed = expected[action][role]
      it.effect(`${role} ${allowed ? "may" : "may not"} ${action}`, () =>
        Effect.gen(function*() {
          assert.strictEqual(roleAllows(role, action), allowed)
          const result = yield* authorize(principal(role), action).pipe(Effect.result)
          assert.strictEqual(result._tag === "Success", allowed)
          if (result._tag === "Failure") assert.strictEqual(result.failure.code, "forbidden")
        }))
    }
  }

  it("owner ⊇ admin ⊇ member", () => {
    for (const action of MemberAction.literals) {
      if (roleAllows("member", action)) assert.isTrue(roleAllows("admin", action), action)
      if (roleAllows("admin", action)) assert.isTrue(roleAllows("owner", action), action)
    }
  })

  it("only owners make, change or touch owners; admins move others between admin and member", () => {
    // [actor, target's role, new role, allowed]
    const cases: ReadonlyArray<readonly [Role, Role, Role, boolean]> = [
      ["owner", "owner", "admin", true],
      ["owner", "member", "owner", true],
      ["owner", "admin", "member", true],
      ["admin", "member", "admin", true],
      ["admin", "admin", "member", true],
      ["admin", "member", "owner", false],
      ["admin", "owner", "admin", false],
      ["admin", "owner", "owner", false],
      ["member", "member", "admin", false],
      ["member", "admin", "member", false]
    ]
    for (const [actor, target, next, allowed] of cases) {
      assert.strictEqual(roleChangeAllowed(actor, target, next), allowed, `${actor}: ${target} → ${next}`)
    }
  })
})
