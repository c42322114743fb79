import { Context, Schema } from "effect"
import { ApiKeyScope } from "./api-key-scope.ts"
import { ApiKeyId, SessionId, UserId, WorkspaceId } from "../shared/index.ts"
import { Role } from "./role.ts"

/** A caller authenticated by a workspace API key; its workspace is the key's, never the client's say. */
export class ApiKeyPrincipal extends Schema.TaggedClass<ApiKeyPrincipal>()("ApiKeyPrincipal", {
  keyId: ApiKeyId,
  workspaceId: WorkspaceId,
  scopes: Schema.Array(ApiKeyScope)
}) {}

/**
 * A member acting through a session, in the session's active workspace; `role` is their membership's, read on this
 * request. Kept out of `Principal` (the API-key principal of `/api/v1`) so key-only code keeps compiling.
 */
export class SessionPrincipal extends Schema.TaggedClass<SessionPrincipal>()("SessionPrincipal", {
  sessionId: SessionId,
  userId: UserId,
  workspaceId: WorkspaceId,
  role: Role
}) {}

/** Any authenticated caller: an API key or a member session. */
export type AnyPrincipal = ApiKeyPrincipal | SessionPrincipal

/**
 * The caller of an `/api/v1` request: API keys only. Member sessions are `SessionPrincipal` (`CurrentMember`;
 * `AnyPrincipal` for both): widening this type would break key-only code (`ApiKeys.authorize`, `principal.keyId`).
 */
export type Principal = ApiKeyPrincipal

/** The principal of the request being served, provided by the HTTP adapter's authentication. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("@atrium/domain/CurrentPrincipal") {}

/** The member session of a `/api/mobile` request, provided by the HTTP adapter's session authentication. */
export class CurrentMember extends Context.Service<CurrentMember, SessionPrincipal>()("@atrium/domain/CurrentMember") {}
