import { Context, type DateTime, type Effect, type Option } from "effect"
import type { ApiKey } from "./api-key.ts"
import type { Unavailable } from "../shared/index.ts"
import type { ApiKeyId, WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"

/** Port: API key storage, by digest for authentication and by workspace for management. */
export class ApiKeyRepository extends Context.Service<ApiKeyRepository, {
  readonly insert: (key: ApiKey) => Effect.Effect<void, Unavailable>
  readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<ApiKey>, Unavailable>
  /** Only within `workspaceId`: another workspace's key is `None`, as if it did not exist. */
  readonly findById: (workspaceId: WorkspaceId, id: ApiKeyId) => Effect.Effect<Option.Option<ApiKey>, Unavailable>
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<ApiKey>, Unavailable>
  /** Sets `revokedAt` unless already set; returns the key as stored afterwards. */
  readonly revoke: (workspaceId: WorkspaceId, id: ApiKeyId, at: DateTime.Utc) => Effect.Effect<Option.Option<ApiKey>, Unavailable>
  /**
   * Marks a roll: only while the key is unrevoked, not yet replaced and not expired at `now`, sets `replacedBy` and
   * `expiresAt`; `None` when it was not eligible (another roll or a revocation came first).
   */
  readonly markRolled: (
    workspaceId: WorkspaceId,
    id: ApiKeyId,
    replacedBy: ApiKeyId,
    expiresAt: DateTime.Utc,
    now: DateTime.Utc
  ) => Effect.Effect<Option.Option<ApiKey>, Unavailable>
  readonly touchLastUsed: (id: ApiKeyId, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/ApiKeyRepository") {}
