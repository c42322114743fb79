import { Effect, Schema } from "effect"
import { Forbidden, InsufficientScope } from "./access-errors.ts"
import type { ApiKeyScope } from "./api-key-scope.ts"
import type { Acting, OperatorPrincipal, SessionPrincipal, SystemPrincipal } from "./principal.ts"
import type { Role } from "./role.ts"

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
  "owners.manage",
  "workspaces.create",
  "entitlements.manage",
  "billing.manage",
  "feature_requests.moderate"
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
  "owners.manage": { scope: null, role: "owner" },
  // The operator's alone (neither keys nor members): new tenants, grants outside a store, credits and caps, moderation.
  "workspaces.create": { scope: null, role: null },
  "entitlements.manage": { scope: null, role: null },
  "billing.manage": { scope: null, role: null },
  "feature_requests.moderate": { scope: null, role: null }
}

const rank: { readonly [R in Role]: number } = { member: 1, admin: 2, owner: 3 }

/** The role ladder: whether `role` includes everything `required` may do. */
const roleIncludes = (role: Role, required: Role): boolean => rank[role] >= rank[required]

/** The scope policy: does a key holding `granted` satisfy `required`? */
export const scopeAllows = (granted: ReadonlyArray<ApiKeyScope>, required: ApiKeyScope): boolean =>
  granted.includes("write") || granted.includes(required)

/** Whether a member with `role` holds `permission`. */
export const roleAllows = (role: Role, permission: Permission): boolean => {
  const least = permissionTable[permission].role
  return least !== null && roleIncludes(role, least)
}

/** Granting, changing or taking `owner` needs `owners.manage` besides `members.manage`. */
export const roleChangeAllowed = (actorRole: Role, targetRole: Role, newRole: Role): boolean =>
  roleAllows(actorRole, "members.manage") &&
  (targetRole !== "owner" && newRole !== "owner" || roleAllows(actorRole, "owners.manage"))

/**
 * What the system may do when it acts (the admin CLI, workers, store notifications): what an owner may, and what only
 * the operator may (the permissions no role and no scope grants).
 */
export const systemPermissions: ReadonlySet<Permission> = new Set(
  Permission.literals.filter((permission) => roleAllows("owner", permission) || permissionTable[permission].role === null && permissionTable[permission].scope === null)
)

/**
 * Whether `principal` holds `permission`: its scopes for a key, its role for a member, the system's set for the system
 * (narrowed to its own `permissions` when it names them).
 */
export const isPermitted = (principal: Acting | OperatorPrincipal, permission: Permission): boolean => {
  if (principal._tag === "SessionPrincipal") return roleAllows(principal.role, permission)
  if (principal._tag === "SystemPrincipal" || principal._tag === "OperatorPrincipal") {
    return systemPermissions.has(permission) && (principal.permissions === undefined || principal.permissions.includes(permission))
  }
  const scope = permissionTable[permission].scope
  return scope !== null && scopeAllows(principal.scopes, scope)
}

/**
 * THE policy every entry point asks (HTTP middleware and the domain services themselves): succeeds when `principal`
 * holds `permission`; a key lacking the scope gets `InsufficientScope`, anything else `Forbidden`.
 */
export function permits(principal: SessionPrincipal | SystemPrincipal | OperatorPrincipal, permission: Permission): Effect.Effect<void, Forbidden>
export function permits(principal: Acting | OperatorPrincipal, permission: Permission): Effect.Effect<void, Forbidden | InsufficientScope>
export function permits(principal: Acting | OperatorPrincipal, permission: Permission): Effect.Effect<void, Forbidden | InsufficientScope> {
  if (isPermitted(principal, permission)) return Effect.void
  if (principal._tag === "SessionPrincipal") {
    return Effect.fail(new Forbidden({ detail: `The ${principal.role} role does not allow ${permission}` }))
  }
  if (principal._tag !== "ApiKeyPrincipal") return Effect.fail(new Forbidden({ detail: `The system does not ${permission}` }))
  const scope = permissionTable[permission].scope
  return scope === null
    ? Effect.fail(new Forbidden({ detail: `API keys cannot ${permission}; use a member session` }))
    : Effect.fail(new InsufficientScope({ requiredScope: scope }))
}
