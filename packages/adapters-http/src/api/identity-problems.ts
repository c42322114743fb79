import { Schema } from "effect"
import { HttpApiError } from "effect/http-api"

// Same conventions as `problems.ts`: the envelope fills `requestId` in.
const requestId = Schema.optionalKey(Schema.String.annotate({
  description: "Id of the request, also sent as the `x-request-id` header"
}))

const problemType = (code: string) => `https://atrium.dev/problems/${code}`

/** Codes of a 401 on a session route. */
export const SessionUnauthenticatedCode = Schema.Literals([
  "missing_credentials",
  "malformed_credentials",
  "session_expired",
  "invalid_session"
]).annotate({
  description: "`missing_credentials`: no Bearer token. `malformed_credentials`: not a Bearer header, or an API key " +
    "(`sk_…`) where only a member session is accepted — fix the client, signing in again will not help. " +
    "`session_expired`: the access token is past its expiry — refresh and retry. `invalid_session`: unknown, revoked, " +
    "signed-out or reused token — sign in again"
})

/** 401 on a session route: the access token is missing, malformed, expired or not a live session; with `WWW-Authenticate`. */
export class SessionUnauthenticatedProblem extends HttpApiError.Problem<SessionUnauthenticatedProblem>()("SessionUnauthenticatedProblem", {
  type: problemType("unauthenticated"),
  status: 401,
  title: "Unauthenticated"
}, {
  code: SessionUnauthenticatedCode,
  requestId
}) {}

/** 401 `invalid_credentials`: the email and password do not match an account (the same answer for an unknown email). */
export class InvalidCredentialsProblem extends HttpApiError.Problem<InvalidCredentialsProblem>()("InvalidCredentialsProblem", {
  type: problemType("invalid_credentials"),
  status: 401,
  title: "Invalid credentials"
}, {
  code: Schema.tag("invalid_credentials"),
  requestId
}) {}

/** 403 `forbidden`: the member's role (or membership of the active workspace) does not allow the action. */
export class ForbiddenProblem extends HttpApiError.Problem<ForbiddenProblem>()("ForbiddenProblem", {
  type: problemType("forbidden"),
  status: 403,
  title: "Forbidden"
}, {
  code: Schema.tag("forbidden"),
  requestId
}) {}

/** 409 `email_taken`: an account with this email exists. */
export class EmailTakenProblem extends HttpApiError.Problem<EmailTakenProblem>()("EmailTakenProblem", {
  type: problemType("email_taken"),
  status: 409,
  title: "Email taken"
}, {
  code: Schema.tag("email_taken"),
  requestId
}) {}

/** 412 `precondition_failed`: `If-Match` does not name the current version; nothing was written. */
export class PreconditionFailedProblem extends HttpApiError.Problem<PreconditionFailedProblem>()("PreconditionFailedProblem", {
  type: problemType("precondition_failed"),
  status: 412,
  title: "Precondition failed"
}, {
  code: Schema.tag("precondition_failed"),
  requestId,
  currentEtag: Schema.String.annotate({ description: "The `ETag` of the current version: read it, merge, and retry", examples: ['"v3"'] })
}) {}

/** 428 `precondition_required`: the write needs an `If-Match` header, so a stale client cannot overwrite silently. */
export class PreconditionRequiredProblem extends HttpApiError.Problem<PreconditionRequiredProblem>()("PreconditionRequiredProblem", {
  type: problemType("precondition_required"),
  status: 428,
  title: "Precondition required"
}, {
  code: Schema.tag("precondition_required"),
  requestId
}) {}

/** 400 `invalid_token`: a verification or reset link that is unknown, already used or expired (one answer for all three). */
export class InvalidTokenProblem extends HttpApiError.Problem<InvalidTokenProblem>()("InvalidTokenProblem", {
  type: problemType("invalid_token"),
  status: 400,
  title: "Invalid or expired link"
}, {
  code: Schema.tag("invalid_token"),
  requestId
}) {}

/** 409 `email_already_verified`: the account's address is verified; there is no link to resend. */
export class EmailAlreadyVerifiedProblem extends HttpApiError.Problem<EmailAlreadyVerifiedProblem>()("EmailAlreadyVerifiedProblem", {
  type: problemType("email_already_verified"),
  status: 409,
  title: "Email already verified"
}, {
  code: Schema.tag("email_already_verified"),
  requestId
}) {}
