import { Schema } from "effect"

/** A record that does not exist in the caller's workspace (another workspace's records look the same). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  code: Schema.tag("not_found"),
  resource: Schema.String
}, { httpApiStatus: 404 }) {}

/** The change collides with existing state (a taken slug, a duplicate name). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  code: Schema.tag("conflict"),
  detail: Schema.String
}, { httpApiStatus: 409 }) {}

/** A dependency (the database) could not answer: the caller should retry, never treat it as a denial. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  code: Schema.tag("unavailable"),
  dependency: Schema.String
}, { httpApiStatus: 503 }) {}

/** One failed check of an input value: where it is (`["query", "limit"]`) and what is wrong. */
export const InputIssue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
  message: Schema.String
})
export type InputIssue = typeof InputIssue.Type

/** Input that breaks its schema (with the failed checks in `errors`) or a business rule. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  code: Schema.tag("invalid_request"),
  detail: Schema.String,
  errors: Schema.optionalKey(Schema.Array(InputIssue))
}, { httpApiStatus: 400 }) {}

/** Too many attempts for one subject (a key, a session, an address, an email) in the current window. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  code: Schema.tag("rate_limited"),
  detail: Schema.String,
  retryAfter: Schema.Int.annotate({ description: "Seconds to wait before retrying (same as `Retry-After`)" }),
  limit: Schema.optionalKey(Schema.Int.annotate({ description: "How many the limit that refused allows per window (as in `RateLimit-Policy`)" })),
  windowSeconds: Schema.optionalKey(Schema.Int.annotate({ description: "The window of the limit that refused, in seconds" }))
}, { httpApiStatus: 429 }) {}

/** A conditional write came without its precondition (`If-Match`), so a stale client cannot overwrite silently. */
export class PreconditionRequired extends Schema.TaggedError<PreconditionRequired>()("PreconditionRequired", {
  code: Schema.tag("precondition_required"),
  detail: Schema.String
}, { httpApiStatus: 428 }) {}

/** The `Idempotency-Key` was already used, within its 24 hours, for a different request. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  code: Schema.tag("idempotency_key_reused")
}, { httpApiStatus: 409 }) {}

/** The caller's `If-Match` names a version that is no longer current; nothing was written. */
export class PreconditionFailed extends Schema.TaggedError<PreconditionFailed>()("PreconditionFailed", {
  code: Schema.tag("precondition_failed"),
  currentVersion: Schema.Int
}, { httpApiStatus: 412 }) {}
