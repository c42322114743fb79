import { Actor, ApiKeyEnvironment, ApiKeyScope, ApiKeyView, rollGrace, SafeText } from "@atrium/domain"
import { Duration, Schema } from "effect"
import { NextCursor } from "./page-query.ts"
import { Instant } from "./instant.ts"

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
  name: SafeText.check(Schema.isBetweenLength(1, 100)).annotate({ description: "What the key is for" }),
  scopes: Schema.optionalKey(Schema.Array(ApiKeyScope).check(Schema.isBetweenLength(1, 5)).annotate({ description: "Default `[\"read\"]`" })),
  environment: Schema.optionalKey(ApiKeyEnvironment.annotate({ description: "`live` (default) or `test`" })),
  expiresAt: Schema.optionalKey(Instant.annotate({ description: "ISO-8601 expiry; absent for none" }))
}).annotate({ identifier: "CreateApiKey" })

/** 201 of creating a key: its plaintext, shown only now. */
export const ApiKeyCreated = Schema.Struct({
  apiKey: ManagedApiKeyView,
  key: Schema.String.annotate({ description: "The key (`sk_live_…`), shown only now: store it, it cannot be read again" })
}).annotate({ identifier: "ApiKeyCreated" })

/** `POST /api/mobile/api-keys/{id}/roll`: every field is optional, and so is the body itself (none takes the defaults). */
export const RollApiKey = Schema.Struct({
  graceSeconds: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Duration.toSeconds(rollGrace.maximum) })).annotate({
      description: "Seconds the old key keeps working beside the new one; default 86400 (24 h), at most 604800 (7 days)",
      examples: [3600]
    })
  )
}).annotate({ identifier: "RollApiKey" })

/**
 * The roll request's accepted bodies: the options, or `null`. Declared as two payloads (not one union) because the
 * server reads an empty JSON body as `null` only when one payload is exactly `null`: no body, `null` and `{}` all work.
 */
export const RollApiKeyBody = [RollApiKey, Schema.Null] as const

/** 201 of rolling a key: the new key with its plaintext (shown only now), and the old key with its grace as `expiresAt`. */
export const ApiKeyRolled = Schema.Struct({
  apiKey: ManagedApiKeyView.annotate({ description: "The new key: same name, scopes and environment" }),
  key: Schema.String.annotate({ description: "The new key (`sk_live_…`), shown only now: store it, it cannot be read again" }),
  previous: ManagedApiKeyView.annotate({
    description: "The rolled key: it works until its `expiresAt` (the grace), then answers 401 `api_key_expired`"
  })
}).annotate({ identifier: "ApiKeyRolled" })
