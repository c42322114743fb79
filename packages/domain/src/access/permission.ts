import { Effect, Schema } from "effect"
import { Forbidden, InsufficientScope } from "./access-errors.ts"
import { type ApiKeyScope, scopeAllows } from "./api-key-scope.ts"
import type { Acting, SessionPrincipal } from "./principal.ts"
import { type Role, roleIncludes } from "./role.ts"

/** Everything a caller can ask to do, on any interface; each names the key scope and the least member role it needs. */
export const Permission = Schema.Literals([
  "workspace.read",
  "usage.read",
  "entitlements.read",
  "models.read",
  "appearance.read",
  "appearance.write",
  "ai_tasks.read",
  "ai_tasks.submit",
  "feature_requests.submit",
  "api_keys.manage",
  "webhooks.read",
  "webhooks.write",
  "invitations.manage",
  "members.manage",
  "domains.read",
  "domains.manage",
  "schedules.read",
  "schedules.write",
  "audit.read",
  "request_logs.read",
  "purchases.read",
  "purchases.manage",
  "owners.manage"
]).annotate({ identifier: "Permission" })
export type Permission = typeof Permission.Type

/** What grants a permission: a key scope (`null`: keys never may) and a least role (`null`: members never may). */
export interface Grant {
  readonly scope: ApiKeyScope | null
  readonly role: Role | null
}

/**
 * THE access table (owner ⊇ admin ⊇ member; `write` implies every scope). Reading webhooks is managing them for
 * members (settings and delivery logs are not for every member) but plain `read` for keys, as the contract states.
 */
export const permissionTable: { readonly [P in Permission]: Grant } = {
  "workspace.read": { scope: "read", role: "member" },
  "usage.read": { scope: "read", role: "member" },
  "entitlements.read": { scope: "read", role: "member" },
  "models.read": { scope: "read", role: "member" },
  "appearance.read": { scope: null, role: "member" },
  "appearance.write": { scope: null, role: "member" },
  "ai_tasks.read": { scope: "read", role: "member" },
  "ai_tasks.submit": { scope: "ai_tasks:write", role: "member" },
  "feature_requests.submit": { scope: null, role: "member" },
  "api_keys.manage": { scope: null, role: "admin" },
  "webhooks.read": { scope: "read", role: "admin" },
  "webhooks.write": { scope: "webhooks:write", role: "admin" },
  "invitations.manage": { scope: null, role: "admin" },
  "members.manage": { scope: null, role: "admin" },
  "domains.read": { scope: "read", role: "member" },
  "domains.manage": { scope: null, role: "admin" },
  "schedules.read": { scope: "read", role: "member" },
  "schedules.write": { scope: "schedules:write", role: "admin" },
  "audit.read": { scope: null, role: "admin" },
  "request_logs.read": { scope: null, role: "admin" },
  // Buying and syncing for the workspace is for admins in the app; integrators only read the mirror.
  "purchases.read": { scope: "read", role: "member" },
  "purchases.manage": { scope: null, role: "admin" },
  "owners.manage": { scope: null, role: "owner" }
}

/** Whether a member with `role` holds `permission`. */
export const roleAllows = (role: Role, permission: Permission): boolean => {
  const least = permissionTable[permission].role
  return least !== null && roleIncludes(role, least)
}

/** Granting, changing or taking `owner` needs `owners.manage` besides `members.manage`. */
export const roleChangeAllowed = (actorRole: Role, targetRole: Role, newRole: Role): boolean =>
  roleAllows(actorRole, "members.manage") &&
  (targetRole !== "owner" && newRole !== "owner" || roleAllows(actorRole, "owners.manage"))

/** What the system may do when it acts (the admin CLI, workers, store notifications): what an owner may. */
export const systemPermissions: ReadonlySet<Permission> = new Set(Permission.literals.filter((permission) => roleAllows("owner", permission)))

/** Whether `principal` holds `permission`: its scopes for a key, its role for a member, the system's set for the system. */
export const isPermitted = (principal: Acting, permission: Permission): boolean => {
  if (principal._tag === "SessionPrincipal") return roleAllows(principal.role, permission)
  if (principal._tag === "SystemPrincipal") return systemPermissions.has(permission)
  const scope = permissionTable[permission].scope
  return scope !== null && scopeAllows(principal.scopes, scope)
}

/**
 * THE policy every entry point asks (HTTP middleware and the domain services themselves): succeeds when `principal`
 * holds `permission`; a key lacking the scope gets `InsufficientScope`, anything else `Forbidden`.
 */
export function permits(principal: SessionPrincipal, permission: Permission): Effect.Effect<void, Forbidden>
export function permits(principal: Acting, permission: Permission): Effect.Effect<void, Forbidden | InsufficientScope>
export function permits(principal: Acting, permission: Permission): Effect.Effect<void, Forbidden | InsufficientScope> {
  if (isPermitted(principal, permission)) return Effect.void
  if (principal._tag === "SessionPrincipal") {
    return Effect.fail(new Forbidden({ detail: `The ${principal.role} role does not allow ${permission}` }))
  }
  if (principal._tag === "SystemPrincipal") return Effect.fail(new Forbidden({ detail: `The system does not ${permission}` }))
  const scope = permissionTable[permission].scope
  return scope === null
    ? Effect.fail(new Forbidden({ detail: `API keys cannot ${permission}; use a member session` }))
    : Effect.fail(new InsufficientScope({ requiredScope: scope }))
}
