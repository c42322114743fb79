import { Effect, Schema } from "effect"
import type { Actor } from "../shared/index.ts"
import { Forbidden } from "./access-errors.ts"
import type { SessionPrincipal } from "./principal.ts"
import { type Role, roleIncludes } from "./role.ts"

/** Everything a member session can ask to do; each maps to the least role allowed to do it. */
export const MemberAction = Schema.Literals([
  "workspace.read",
  "usage.read",
  "entitlement.read",
  "appearance.read",
  "appearance.write",
  "ai_task.submit",
  "feature_request.submit",
  "api_key.manage",
  "webhook.manage",
  "invitation.manage",
  "member.manage",
  "domain.manage",
  "schedule.manage",
  "audit.read",
  "purchase.read",
  "purchase.manage",
  "owner.manage"
]).annotate({ identifier: "MemberAction" })
export type MemberAction = typeof MemberAction.Type

/**
 * THE role policy: the least role for each action (owner ⊇ admin ⊇ member). `owner.manage` — inviting, promoting,
 * demoting or removing an owner — is the owners' alone; everything else follows from this table and the rules below.
 */
export const leastRoleFor: { readonly [A in MemberAction]: Role } = {
  "workspace.read": "member",
  "usage.read": "member",
  "entitlement.read": "member",
  "appearance.read": "member",
  "appearance.write": "member",
  "ai_task.submit": "member",
  "feature_request.submit": "member",
  "api_key.manage": "admin",
  "webhook.manage": "admin",
  "invitation.manage": "admin",
  "member.manage": "admin",
  "domain.manage": "admin",
  "schedule.manage": "admin",
  "audit.read": "admin",
  "purchase.read": "member",
  "purchase.manage": "admin",
  "owner.manage": "owner"
}

/** Whether `role` may perform `action`. */
export const roleAllows = (role: Role, action: MemberAction): boolean => roleIncludes(role, leastRoleFor[action])

/** The actions whose target or result is a role: granting or touching `owner` needs `owner.manage` as well. */
export const roleChangeAllowed = (actorRole: Role, targetRole: Role, newRole: Role): boolean =>
  roleAllows(actorRole, "member.manage") &&
  (targetRole !== "owner" && newRole !== "owner" || roleAllows(actorRole, "owner.manage"))

/** Fails with `Forbidden` unless the principal's role allows `action`. */
export const authorize = (principal: SessionPrincipal, action: MemberAction): Effect.Effect<void, Forbidden> =>
  roleAllows(principal.role, action)
    ? Effect.void
    : Effect.fail(new Forbidden({ detail: `The ${principal.role} role does not allow ${action}` }))

/** The audit actor of a member session. */
export const memberActor = (principal: { readonly userId: string }): Actor => ({ type: "user", id: principal.userId })
