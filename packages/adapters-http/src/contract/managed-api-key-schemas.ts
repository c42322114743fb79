import { Actor, ApiKeyEnvironment, ApiKeyScope, ApiKeyView } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"

/** An API key as Settings → Developers lists it: its display prefix, scopes, use and creator; never its secret. */
export const ManagedApiKeyView = Schema.Struct({
  ...ApiKeyView.fields,
  createdBy: Actor
}).annotate({ identifier: "ManagedApiKey" })
export type ManagedApiKeyView = typeof ManagedApiKeyView.Type

/** One page of the workspace's keys. */
export const ManagedApiKeyList = Schema.Struct({ data: Schema.Array(ManagedApiKeyView), nextCursor: NextCursor }).annotate({ identifier: "ManagedApiKeyList" })

/** `POST /api/mobile/api-keys`. */
export const CreateApiKey = Schema.Struct({
  name: Schema.String.check(Schema.isBetweenLength(1, 100)).annotate({ description: "What the key is for" }),
  scopes: Schema.optionalKey(Schema.Array(ApiKeyScope).check(Schema.isBetweenLength(1, 4)).annotate({ description: "Default `[\"read\"]`" })),
  environment: Schema.optionalKey(ApiKeyEnvironment.annotate({ description: "`live` (default) or `test`" })),
  expiresAt: Schema.optionalKey(Schema.DateTimeUtcFromString.annotate({ description: "ISO-8601 expiry; absent for none" }))
}).annotate({ identifier: "CreateApiKey" })

/** 201 of creating a key: its plaintext, shown only now. */
export const ApiKeyCreated = Schema.Struct({
  apiKey: ManagedApiKeyView,
  key: Schema.String.annotate({ description: "The key (`sk_live_…`), shown only now: store it, it cannot be read again" })
}).annotate({ identifier: "ApiKeyCreated" })
