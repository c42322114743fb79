import { Context, Schema } from "effect"
import { ApiKeyScope } from "./api-key-scope.ts"
import { ApiKeyId, WorkspaceId } from "./ids.ts"

/** A caller authenticated by a workspace API key; its workspace is the key's, never the client's say. */
export class ApiKeyPrincipal extends Schema.TaggedClass<ApiKeyPrincipal>()("ApiKeyPrincipal", {
  keyId: ApiKeyId,
  workspaceId: WorkspaceId,
  scopes: Schema.Array(ApiKeyScope)
}) {}

/** Whoever the current request acts for. Sessions join this union in the mobile issue. */
export type Principal = ApiKeyPrincipal

/** The principal of the request being served, provided by the HTTP adapter's authentication. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("@atrium/domain/CurrentPrincipal") {}
