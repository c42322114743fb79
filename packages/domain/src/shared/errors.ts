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

/** Input that passed its schema but breaks a business rule. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  code: Schema.tag("invalid_request"),
  detail: Schema.String
}, { httpApiStatus: 400 }) {}

/** The `Idempotency-Key` was already used, within its 24 hours, for a different request. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  code: Schema.tag("idempotency_key_reused")
}, { httpApiStatus: 409 }) {}

/** The caller's `If-Match` names a version that is no longer current; nothing was written. */
export class PreconditionFailed extends Schema.TaggedError<PreconditionFailed>()("PreconditionFailed", {
  code: Schema.tag("precondition_failed"),
  currentVersion: Schema.Int
}, { httpApiStatus: 412 }) {}
