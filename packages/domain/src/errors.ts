import { Schema } from "effect"
import { ApiKeyScope } from "./api-key-scope.ts"

/** A record that does not exist in the caller's workspace (another workspace's records look the same). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  code: Schema.tag("not_found"),
  resource: Schema.String
}) {}

/** The change collides with existing state (a taken slug, a duplicate name). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  code: Schema.tag("conflict"),
  detail: Schema.String
}) {}

/** A dependency (the database) could not answer: the caller should retry, never treat it as a denial. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  code: Schema.tag("unavailable"),
  dependency: Schema.String
}) {}

/** Why a presented API key was refused, as the contract's error codes. */
export const ApiKeyRejection = Schema.Literals([
  "missing_credentials",
  "malformed_credentials",
  "invalid_api_key",
  "api_key_revoked",
  "api_key_expired"
])
export type ApiKeyRejection = typeof ApiKeyRejection.Type

/** The presented credential does not authenticate: missing, malformed, unknown, revoked or expired. */
export class ApiKeyRejected extends Schema.TaggedError<ApiKeyRejected>()("ApiKeyRejected", {
  code: ApiKeyRejection
}) {}

/** The key authenticates but lacks the scope the operation requires. */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", {
  code: Schema.tag("insufficient_scope"),
  requiredScope: ApiKeyScope
}) {}

/** Input that passed its schema but breaks a business rule. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  code: Schema.tag("invalid_request"),
  detail: Schema.String
}) {}

/** The workspace lacks the feature the operation (or the chosen model) requires. */
export class NotEntitled extends Schema.TaggedError<NotEntitled>()("NotEntitled", {
  code: Schema.tag("not_entitled"),
  feature: Schema.String
}) {}

/** Usage meters whose monthly cap can stop an operation. */
export const CapMeter = Schema.Literals(["ai_spend", "ai_tasks"]).annotate({ description: "ai_spend: micro-USD spent on AI; ai_tasks: AI tasks submitted" })
export type CapMeter = typeof CapMeter.Type

/** The operation would take a usage meter beyond its monthly cap. */
export class UsageCapReached extends Schema.TaggedError<UsageCapReached>()("UsageCapReached", {
  code: Schema.tag("usage_cap_reached"),
  meter: CapMeter
}) {}

/** The credit balance (less what unfinished tasks hold) cannot cover the operation's worst-case cost. */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  code: Schema.tag("insufficient_credits")
}) {}

/** The `Idempotency-Key` was already used, within its 24 hours, for a different request. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  code: Schema.tag("idempotency_key_reused")
}) {}

/** An account with this (normalised) email already exists. */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", {
  code: Schema.tag("email_taken")
}) {}

/** Sign-in refused: one answer for an unknown email and a wrong password, so neither can be told apart. */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {
  code: Schema.tag("invalid_credentials")
}) {}

/**
 * Why a presented session token was refused. `session_expired`: only an access token past its expiry (or one a
 * refresh superseded) of a live session — the client refreshes and retries. `invalid_session`: unknown, revoked,
 * signed-out, lapsed or reused — the client signs in again. A lookup that fails is `Unavailable`, never one of these.
 */
export const SessionRejection = Schema.Literals(["missing_credentials", "session_expired", "invalid_session"])
export type SessionRejection = typeof SessionRejection.Type

/** The presented session token does not authenticate. */
export class SessionRejected extends Schema.TaggedError<SessionRejected>()("SessionRejected", {
  code: SessionRejection
}) {}

/** The member's role (or membership) does not allow the action. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  code: Schema.tag("forbidden"),
  detail: Schema.String
}) {}

/** The caller's `If-Match` names a version that is no longer current; nothing was written. */
export class PreconditionFailed extends Schema.TaggedError<PreconditionFailed>()("PreconditionFailed", {
  code: Schema.tag("precondition_failed"),
  currentVersion: Schema.Int
}) {}
