import { Schema } from "effect"
import { ApiKeyScope } from "./api-key-scope.ts"

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
}, { httpApiStatus: 401 }) {}

/** The key authenticates but lacks the scope the operation requires. */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", {
  code: Schema.tag("insufficient_scope"),
  requiredScope: ApiKeyScope
}, { httpApiStatus: 403 }) {}

/**
 * Why a presented session token was refused. `session_expired`: only an access token past its expiry (or one a
 * refresh superseded) of a live session — the client refreshes and retries. `invalid_session`: unknown, revoked,
 * signed-out, lapsed or reused — the client signs in again. `malformed_credentials`: not a session token at all (an API
 * key where only sessions are accepted) — the client is misconfigured. A lookup that fails is `Unavailable`, never one of these.
 */
export const SessionRejection = Schema.Literals(["missing_credentials", "malformed_credentials", "session_expired", "invalid_session"])
export type SessionRejection = typeof SessionRejection.Type

/** The presented session token does not authenticate. */
export class SessionRejected extends Schema.TaggedError<SessionRejected>()("SessionRejected", {
  code: SessionRejection
}, { httpApiStatus: 401 }) {}

/** The member's role (or membership) does not allow the action. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  code: Schema.tag("forbidden"),
  detail: Schema.String
}, { httpApiStatus: 403 }) {}
