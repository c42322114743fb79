import { Context, Effect, Schema } from "effect"
import { Forbidden } from "./access-errors.ts"
import { type Actor, systemActor } from "../shared/index.ts"
import { ApiKeyId, SessionId, UserId, WorkspaceId } from "../shared/index.ts"
import { ApiKeyScope } from "./api-key-scope.ts"
import { Permission } from "./permission.ts"
import { Role } from "./role.ts"

/** A caller authenticated by a workspace API key; its workspace is the key's, never the client's say. */
export class ApiKeyPrincipal extends Schema.TaggedClass<ApiKeyPrincipal>()("ApiKeyPrincipal", {
  keyId: ApiKeyId,
  workspaceId: WorkspaceId,
  scopes: Schema.Array(ApiKeyScope)
}) {}

/** A member acting through a session, in the session's active workspace; `role` is their membership's, read on this request. */
export class SessionPrincipal extends Schema.TaggedClass<SessionPrincipal>()("SessionPrincipal", {
  sessionId: SessionId,
  userId: UserId,
  workspaceId: WorkspaceId,
  role: Role
}) {}

/** Whoever acts in a workspace: an API key (under its scopes) or a member session (under the member's role). */
export const Principal = Schema.Union([ApiKeyPrincipal, SessionPrincipal])
export type Principal = ApiKeyPrincipal | SessionPrincipal

/**
 * The operator or the server itself acting in a workspace: the admin CLI, a worker, a store notification. It holds the
 * system's permission set (`systemPermissions`), or only those of it named in `permissions` (a schedule's run may only
 * submit its task); its audit actor is `system:<name>`.
 */
export class SystemPrincipal extends Schema.TaggedClass<SystemPrincipal>()("SystemPrincipal", {
  name: Schema.String,
  workspaceId: WorkspaceId,
  permissions: Schema.optional(Schema.Array(Permission))
}) {}

/**
 * The operator acting across the service, in no one workspace: creating a workspace, moderating the service-wide
 * feature-request board. The system's permission set as `SystemPrincipal` holds it; its audit actor is `system:<name>`.
 */
export class OperatorPrincipal extends Schema.TaggedClass<OperatorPrincipal>()("OperatorPrincipal", {
  name: Schema.String,
  permissions: Schema.optional(Schema.Array(Permission))
}) {}

/** Whoever a domain service acts for in a workspace: the principal of a request, or the system. */
export type Acting = Principal | SystemPrincipal

/** The principal of the request being served, provided by the HTTP adapter's one authentication middleware. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("@atrium/domain/CurrentPrincipal") {}

/** The audit actor of a member (by user id). */
export const memberActor = (principal: { readonly userId: string }): Actor => ({ type: "user", id: principal.userId })

/** The audit actor of a principal: the key, the member's user, or the system (or operator) by name. */
export const actorOf = (principal: Acting | OperatorPrincipal): Actor =>
  principal._tag === "ApiKeyPrincipal"
    ? { type: "api_key", id: principal.keyId }
    : principal._tag === "SessionPrincipal"
    ? memberActor(principal)
    : systemActor(principal.name)

/** The id rate limits and access logs count a principal by: its key or its session. */
export const principalId = (principal: Principal): string =>
  principal._tag === "ApiKeyPrincipal" ? principal.keyId : principal.sessionId

/** The member behind a principal, for operations only a member session can do (an API key or the system is `Forbidden`). */
export const memberOf = (principal: Acting): Effect.Effect<SessionPrincipal, Forbidden> =>
  principal._tag === "SessionPrincipal"
    ? Effect.succeed(principal)
    : Effect.fail(new Forbidden({ detail: principal._tag === "ApiKeyPrincipal" ? "Only a member session can do this; API keys cannot" : "Only a member session can do this; the system cannot" }))
