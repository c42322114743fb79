import { ApiKeyRejection, ApiKeyScope } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiError } from "effect/http-api"

// Every problem carries `requestId`; the router-level envelope fills it in, so handlers never have to.
const requestId = Schema.optionalKey(Schema.String.annotate({
  description: "Id of the request, also sent as the `x-request-id` header",
  examples: ["req_3f9a0c1e5b7d4a2f8e6c0b1d3a5f7e9c"]
}))

const problemType = (code: string) => `https://atrium.dev/problems/${code}`

/** One failed check of a request value: where it is (`["query", "limit"]`) and what is wrong. */
export const ProblemIssue = HttpApiError.ProblemIssue

/** 400 `invalid_request`: the request breaks its schema or a rule about where credentials go. */
export class InvalidRequestProblem extends HttpApiError.Problem<InvalidRequestProblem>()("InvalidRequestProblem", {
  type: problemType("invalid_request"),
  status: 400,
  title: "Invalid request"
}, {
  code: Schema.tag("invalid_request"),
  requestId,
  errors: Schema.optionalKey(Schema.Array(ProblemIssue))
}) {}

/** Codes of a 401: the API key is missing, malformed, unknown, revoked or expired. */
export const UnauthenticatedCode = ApiKeyRejection.annotate({
  description: "Why the credential was refused: `missing_credentials`, `malformed_credentials`, `invalid_api_key`, `api_key_revoked` or `api_key_expired`"
})

/** 401: the credential does not authenticate; sent with `WWW-Authenticate: Bearer realm="atrium"…`. */
export class UnauthenticatedProblem extends HttpApiError.Problem<UnauthenticatedProblem>()("UnauthenticatedProblem", {
  type: problemType("unauthenticated"),
  status: 401,
  title: "Unauthenticated"
}, {
  code: UnauthenticatedCode,
  requestId
}) {}

/** 403 `insufficient_scope`: the key authenticates but lacks `requiredScope`. */
export class InsufficientScopeProblem extends HttpApiError.Problem<InsufficientScopeProblem>()("InsufficientScopeProblem", {
  type: problemType("insufficient_scope"),
  status: 403,
  title: "Insufficient scope"
}, {
  code: Schema.tag("insufficient_scope"),
  requestId,
  requiredScope: ApiKeyScope
}) {}

/** 404 `not_found`: no such record in the caller's workspace (another workspace's records look the same). */
export class NotFoundProblem extends HttpApiError.Problem<NotFoundProblem>()("NotFoundProblem", {
  type: problemType("not_found"),
  status: 404,
  title: "Not found"
}, {
  code: Schema.tag("not_found"),
  requestId
}) {}

/** 429 `rate_limited`: too many requests for this key; sent with `Retry-After` and `RateLimit` headers. */
export class RateLimitedProblem extends HttpApiError.Problem<RateLimitedProblem>()("RateLimitedProblem", {
  type: problemType("rate_limited"),
  status: 429,
  title: "Too many requests"
}, {
  code: Schema.tag("rate_limited"),
  requestId,
  retryAfter: Schema.Int.annotate({ description: "Seconds to wait before retrying (same as `Retry-After`)" })
}) {}

/** 500 `internal_error`: something broke on our side; no detail is disclosed. */
export class InternalErrorProblem extends HttpApiError.Problem<InternalErrorProblem>()("InternalErrorProblem", {
  type: problemType("internal_error"),
  status: 500,
  title: "Internal error"
}, {
  code: Schema.tag("internal_error"),
  requestId
}) {}

/** 503 `unavailable`: a dependency (the database) is down; retry after `Retry-After` seconds. */
export class UnavailableProblem extends HttpApiError.Problem<UnavailableProblem>()("UnavailableProblem", {
  type: problemType("unavailable"),
  status: 503,
  title: "Service unavailable"
}, {
  code: Schema.tag("unavailable"),
  requestId
}) {}

/** Failures any endpoint can answer besides those its middleware declares. */
export const serverProblems = [UnavailableProblem, InternalErrorProblem] as const
