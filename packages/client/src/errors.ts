import {
  ApiKeyRejected,
  appearanceEtag,
  Conflict,
  DomainTaken,
  EmailAlreadyVerified,
  EmailTaken,
  Forbidden,
  IdempotencyKeyReused,
  InsufficientCredits,
  InsufficientScope,
  InvalidCredentials,
  InvalidInput,
  InvalidToken,
  NotEntitled,
  NotFound,
  PreconditionFailed,
  PreconditionRequired,
  RateLimited,
  SessionRejected,
  Unavailable,
  UsageCapReached
} from "@atrium/domain"
import { Schema } from "effect"
import { problem } from "./problem.ts"

// Each code of a credential refusal tells the client what to do next.
const keyDetails: { readonly [C in ApiKeyRejected["code"]]: string } = {
  missing_credentials: "Send a credential as Authorization: Bearer <token>",
  malformed_credentials: "Send a workspace API key (sk_live_… or sk_test_…) as Authorization: Bearer <key>",
  invalid_api_key: "The API key is not known",
  api_key_revoked: "The API key was revoked",
  api_key_expired: "The API key has expired"
}
const sessionDetails: { readonly [C in SessionRejected["code"]]: string } = {
  missing_credentials: "Send a member session access token as Authorization: Bearer <token>",
  malformed_credentials: "Send a member session access token (at_…) as Authorization: Bearer <token>; API keys are not accepted here",
  session_expired: "The access token has expired; refresh the session and retry",
  invalid_session: "The session has ended; sign in again"
}

/**
 * The domain's errors as the contract's problems: one rendering each (title, detail), declared once and used by every
 * endpoint that can fail with them. The error classes themselves (code, status) live in the domain.
 */
export const Problems = {
  /** 400 `invalid_request`: the request breaks its schema (with `errors`) or a business rule. */
  InvalidInput: problem(InvalidInput, { detail: (e) => e.detail }),
  /** 400 `invalid_token`: a verification or reset link that is unknown, already used or expired (one answer for all three). */
  InvalidToken: problem(InvalidToken, { detail: (e) => e.detail }),
  /** 401: the API key is missing, malformed, unknown, revoked or expired; sent with `WWW-Authenticate`. */
  ApiKeyRejected: problem(ApiKeyRejected, { detail: (e) => keyDetails[e.code] }),
  /** 401: the session token is missing, malformed, expired (refresh) or dead (sign in again); with `WWW-Authenticate`. */
  SessionRejected: problem(SessionRejected, { detail: (e) => sessionDetails[e.code] }),
  /** 401 `invalid_credentials`: the email and password do not match an account (the same answer for an unknown email). */
  InvalidCredentials: problem(InvalidCredentials, { detail: () => "The email or password is wrong" }),
  /** 403 `insufficient_scope`: the key authenticates but lacks `requiredScope`. */
  InsufficientScope: problem(InsufficientScope, { detail: (e) => `This API key lacks the "${e.requiredScope}" scope` }),
  /** 403 `forbidden`: the member's role (or membership of the active workspace) does not allow the action. */
  Forbidden: problem(Forbidden, { detail: (e) => e.detail }),
  /** 403 `not_entitled`: the workspace lacks `feature`. */
  NotEntitled: problem(NotEntitled, { detail: (e) => `The workspace lacks the "${e.feature}" feature` }),
  /** 402 `usage_cap_reached`: the operation would take `meter` beyond its monthly cap. */
  UsageCapReached: problem(UsageCapReached, { detail: (e) => `This would exceed the monthly ${e.meter} cap` }),
  /** 402 `insufficient_credits`: the available credit cannot cover the operation's worst-case cost. */
  InsufficientCredits: problem(InsufficientCredits, { detail: () => "The available credit does not cover the worst-case cost" }),
  /** 404 `not_found`: no such record in the caller's workspace (another workspace's records look the same). */
  NotFound: problem(NotFound, { detail: (e) => `No such ${e.resource}` }),
  /** 409 `conflict`: the change collides with existing state. */
  Conflict: problem(Conflict, { detail: (e) => e.detail }),
  /** 409 `email_taken`: an account with this email exists. */
  EmailTaken: problem(EmailTaken, { detail: () => "An account with this email exists; sign in instead" }),
  /** 409 `email_already_verified`: the account's address is verified; there is no link to resend. */
  EmailAlreadyVerified: problem(EmailAlreadyVerified, { detail: () => "This account's email address is already verified" }),
  /** 409 `domain_taken`: another workspace holds the hostname; `detail` names the TXT record that would claim it. */
  DomainTaken: problem(DomainTaken, { detail: (e) => e.detail }),
  /** 409 `idempotency_key_reused`: the `Idempotency-Key` was used within 24 h for a different request. */
  IdempotencyKeyReused: problem(IdempotencyKeyReused, { detail: () => "This Idempotency-Key was used for a different request" }),
  /** 412 `precondition_failed`: `If-Match` does not name the current version; `currentEtag` names it. */
  PreconditionFailed: problem(PreconditionFailed, {
    detail: () => "The resource changed since the version If-Match names; nothing was written",
    extensions: (e) => ({ currentEtag: appearanceEtag(e.currentVersion) })
  }),
  /** 428 `precondition_required`: the write needs an `If-Match` header. */
  PreconditionRequired: problem(PreconditionRequired, { detail: (e) => e.detail }),
  /** 429 `rate_limited`: too many requests; sent with `Retry-After` and `RateLimit` headers. */
  RateLimited: problem(RateLimited, { detail: (e) => e.detail }),
  /** 503 `unavailable`: a dependency (the database) is down; retry after `Retry-After` seconds. Never a 401. */
  Unavailable: problem(Unavailable, { detail: () => "A dependency is unavailable; retry shortly" })
} as const


/** 500 `internal_error`: something broke on our side (a defect); no detail is disclosed. Rendered by the envelope. */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
  code: Schema.tag("internal_error")
}, { httpApiStatus: 500, description: "Internal error" }) {}

/** Failures any operation can answer: a dependency outage, or a defect. */
export const serverErrors = [Problems.Unavailable, problem(InternalError, {})] as const
