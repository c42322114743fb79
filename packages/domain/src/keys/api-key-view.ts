import { Schema } from "effect"
import { ApiKey } from "./api-key.ts"
import { ApiKeyEnvironment } from "./api-key-secret.ts"
import { ApiKeyScope } from "../access/index.ts"
import { ApiKeyId, deriveView } from "../shared/index.ts"

/** What anyone but the server may see of a key: never its digest, never its secret. */
export const ApiKeyView = Schema.Struct({
  id: ApiKeyId,
  name: Schema.String,
  environment: ApiKeyEnvironment,
  prefix: Schema.String.annotate({ description: "First characters of the key, for recognising it", examples: ["sk_live_AbC12345"] }),
  scopes: Schema.Array(ApiKeyScope),
  createdAt: Schema.String.annotate({ format: "date-time" }),
  expiresAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" })),
  revokedAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" })),
  lastUsedAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" })).annotate({
    description: "Last authenticated use (updated at most once a minute); after a roll it shows whether the old key is still in use"
  }),
  replacedBy: Schema.NullOr(ApiKeyId).annotate({ description: "The key a roll replaced this one with; this one works until `expiresAt`" })
}).annotate({ identifier: "ApiKey", description: "An API key without its secret" })
export type ApiKeyView = typeof ApiKeyView.Type

/** The public view of a stored key: its digest (and workspace, creator) withheld, its display prefix shown as `prefix`. */
export const toApiKeyView = deriveView(ApiKey, ApiKeyView, { withheld: ["workspaceId", "digest", "createdBy"], renamed: { prefix: "displayPrefix" } })
