import { DateTime, Option, Schema } from "effect"
import { ApiKeyEnvironment } from "./api-key-secret.ts"
import { ApiKeyScope } from "../access/index.ts"
import { Actor } from "../shared/index.ts"
import { ApiKeyId, WorkspaceId } from "../shared/index.ts"

/** A workspace API key as stored: a digest and a display prefix, never the plaintext. */
export class ApiKey extends Schema.Class<ApiKey>("@atrium/domain/ApiKey")({
  id: ApiKeyId,
  workspaceId: WorkspaceId,
  name: Schema.String,
  environment: ApiKeyEnvironment,
  displayPrefix: Schema.String,
  digest: Schema.String,
  scopes: Schema.Array(ApiKeyScope),
  createdBy: Actor,
  createdAt: Schema.DateTimeUtc,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  revokedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  lastUsedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** Past its expiry at `now`. */
  isExpiredAt(now: DateTime.Utc): boolean {
    return Option.isSome(this.expiresAt) && DateTime.isGreaterThanOrEqualTo(now, this.expiresAt.value)
  }
}
