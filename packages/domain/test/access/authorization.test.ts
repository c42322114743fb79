import { assert, describe, it } from "@effect/vitest"
import {
  ApiKeyId,
  ApiKeyPrincipal,
  type ApiKeyScope,
  isPermitted,
  OperatorPrincipal,
  Permission,
  permissionTable,
  permits,
  Role,
  roleAllows,
  roleChangeAllowed,
  SessionId,
  SessionPrincipal,
  SystemPrincipal,
  UserId,
  WorkspaceId
} from "@atrium/domain"
import { Effect } from "effect"

// The access matrix as the contract states it, written out by hand so a change to the table must change this too.
// Columns: owner, admin, member, then the one key scope that grants it (besides `write`), or null when keys never may.
const expected: { readonly [P in Permission]: readonly [owner: boolean, admin: boolean, member: boolean, scope: ApiKeyScope | null] } = {
  "workspace.read": [true, true, true, "read"],
  "usage.read": [true, true, true, "read"],
  "entitlements.read": [true, true, true, "read"],
  "models.read": [true, true, true, "read"],
  "appearance.read": [true, true, true, null],
  "appearance.write": [true, true, true, null],
  "ai_tasks.read": [true, true, true, "read"],
  "ai_tasks.submit": [true, true, true, "ai_tasks:write"],
  "feature_requests.submit": [true, true, true, null],
  "api_keys.manage": [true, true, false, null],
  "webhooks.read": [true, true, false, "read"],
  "webhooks.write": [true, true, false, "webhooks:write"],
  "invitations.manage": [true, true, false, null],
  "members.manage": [true, true, false, null],
  "domains.read": [true, true, true, "read"],
  "domains.manage": [true, true, false, null],
  "schedules.read": [true, true, true, "read"],
  "schedules.write": [true, true, false, "schedules:write"],
  "audit.read": [true, true, false, null],
  "request_logs.read": [true, true, false, null],
  "purchases.read": [true, true, true, "read"],
  "purchases.manage": [true, true, false, null],
  "owners.manage": [true, false, false, null],
  // The operator's alone: no role and no scope grants them.
  "workspaces.create": [false, false, false, null],
  "entitlements.manage": [false, false, false, null],
  "billing.manage": [false, false, false, null],
  "feature_requests.moderate": [false, false, false, null]
}

const member = (role: Role) =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_1"), userId: UserId.make("usr_1"), workspaceId: WorkspaceId.make("ws_1"), role })
const key = (scopes: ReadonlyArray<ApiKeyScope>) =>
  new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_1"), workspaceId: WorkspaceId.make("ws_1"), scopes })

describe("access policy: permits(principal, permission)", () => {
  it("covers every permission of the schema, and nothing else", () => {
    assert.deepStrictEqual(Object.keys(permissionTable).sort(), [...Permission.literals].sort())
    assert.deepStrictEqual(Object.keys(expected).sort(), [...Permission.literals].sort())
  })

  for (const permission of Permission.literals) {
    const [owner, admin, plain, scope] = expected[permission]
    it.effect(`${permission}: owner ${owner}, admin ${admin}, member ${plain}, key scope ${scope ?? "none"}`, () =>
      Effect.gen(function*() {
        for (const [role, allowed] of [["owner", owner], ["admin", admin], ["member", plain]] as const) {
          assert.strictEqual(roleAllows(role, permission), allowed, `${role} → ${permission}`)
          const result = yield* permits(member(role), permission).pipe(Effect.result)
          assert.strictEqual(result._tag === "Success", allowed, `${role} → ${permission}`)
          if (result._tag === "Failure") assert.strictEqual(result.failure._tag, "Forbidden")
        }
        assert.strictEqual(isPermitted(key(["write"]), permission), scope !== null)
        assert.isFalse(isPermitted(key([]), permission))
        if (scope !== null) assert.isTrue(isPermitted(key([scope]), permission))
        const refused = yield* permits(key([]), permission).pipe(Effect.flip)
        assert.strictEqual(refused._tag, scope === null ? "Forbidden" : "InsufficientScope")
        if (refused._tag === "InsufficientScope") assert.strictEqual(refused.requiredScope, scope)
      }))
  }

  it("is monotone: whatever a member may, an admin may; whatever an admin may, an owner may", () => {
    for (const permission of Permission.literals) {
      if (roleAllows("member", permission)) assert.isTrue(roleAllows("admin", permission), permission)
      if (roleAllows("admin", permission)) assert.isTrue(roleAllows("owner", permission), permission)
    }
  })

  it("the system and the operator hold every permission; narrowed, only those they name", () => {
    const system = new SystemPrincipal({ name: "test", workspaceId: WorkspaceId.make("ws_1") })
    const scheduler = new SystemPrincipal({ name: "scheduler", workspaceId: WorkspaceId.make("ws_1"), permissions: ["ai_tasks.submit"] })
    const operator = new OperatorPrincipal({ name: "cli" })
    for (const permission of Permission.literals) {
      assert.isTrue(isPermitted(system, permission), permission)
      assert.isTrue(isPermitted(operator, permission), permission)
      assert.strictEqual(isPermitted(scheduler, permission), permission === "ai_tasks.submit", permission)
    }
  })

  it("role changes: admins move non-owners; only owners touch owner", () => {
    const roles = Role.literals
    for (const actor of roles) {
      for (const target of roles) {
        for (const next of roles) {
          const touchesOwner = target === "owner" || next === "owner"
          const allowed = actor === "owner" || (actor === "admin" && !touchesOwner)
          assert.strictEqual(roleChangeAllowed(actor, target, next), allowed, `${actor}: ${target} → ${next}`)
        }
      }
    }
  })
})
