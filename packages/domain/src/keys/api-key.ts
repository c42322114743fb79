import { DateTime, Duration, Option, Schema } from "effect"
import { ApiKeyEnvironment } from "./api-key-secret.ts"
import { ApiKeyScope } from "../access/index.ts"
import { Actor, SafeText } from "../shared/index.ts"
import { ApiKeyId, WorkspaceId } from "../shared/index.ts"

/** A key's label as a client gives it: one trimmed line of 1–100 characters. */
export const ApiKeyName = SafeText.check(Schema.isTrimmed(), Schema.isBetweenLength(1, 100)).annotate({
  description: "What the key is for",
  examples: ["deploy"]
})

/** The furthest ahead a key's expiry may be set: beyond it an expiry is a typo, not a plan. */
export const maxApiKeyLifetime = Duration.days(3650)

/** Default and longest time a rolled key keeps working beside its successor. */
export const rollGrace = { default: Duration.hours(24), maximum: Duration.days(7) } as const

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
  lastUsedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  /** The key a roll replaced this one with; this one works until its (shortened) expiry. */
  replacedBy: Schema.OptionFromNullOr(ApiKeyId)
}) {
  /** Past its expiry at `now`. */
  isExpiredAt(now: DateTime.Utc): boolean {
    return Option.isSome(this.expiresAt) && DateTime.isGreaterThanOrEqualTo(now, this.expiresAt.value)
  }
  /** Neither revoked nor expired at `now`. */
  isActiveAt(now: DateTime.Utc): boolean {
    return Option.isNone(this.revokedAt) && !this.isExpiredAt(now)
  }
}
