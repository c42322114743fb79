import type { AnyPrincipal } from "@atrium/domain"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { ForbiddenProblem, SessionUnauthenticatedProblem } from "./identity-problems.ts"
import { InsufficientScopeProblem, InvalidRequestProblem, RateLimitedProblem, UnauthenticatedProblem, UnavailableProblem } from "./problems.ts"

/** The bearer scheme of the operations both integrators and the app call: an API key or a member session token. */
export const keyOrSessionBearer = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotateMerge(OpenApi.annotations({
    description: "A workspace API key (`sk_live_…` / `sk_test_…`, acting in the key's workspace under its scopes) or a " +
      "member session access token (`at_…`, acting in the session's active workspace under the member's role).",
    format: "API key or session access token"
  }))
)

/** The caller of an operation open to API keys and member sessions alike. */
export class CurrentAnyPrincipal extends Context.Service<CurrentAnyPrincipal, AnyPrincipal>()("@atrium/adapters-http/CurrentAnyPrincipal") {}

/** Resolves an API key or a session access token, told apart by shape, to the `CurrentAnyPrincipal`. */
export class KeyOrSessionAuthentication extends HttpApiMiddleware.Service<KeyOrSessionAuthentication, {
  provides: CurrentAnyPrincipal
}>()("@atrium/adapters-http/KeyOrSessionAuthentication", {
  security: { keyOrSession: keyOrSessionBearer },
  error: [InvalidRequestProblem, UnauthenticatedProblem, SessionUnauthenticatedProblem, ForbiddenProblem, UnavailableProblem]
}) {}

/** A key needs the endpoint's `RequiredScope` (403 `insufficient_scope`); a member its `RequiredAction` (403 `forbidden`). */
export class KeyOrSessionAuthorization extends HttpApiMiddleware.Service<KeyOrSessionAuthorization, {
  requires: CurrentAnyPrincipal
}>()("@atrium/adapters-http/KeyOrSessionAuthorization", {
  error: [InsufficientScopeProblem, ForbiddenProblem]
}) {}

/** Counts requests per API key or per session, with the limits of `RateLimit` (429 `rate_limited`). */
export class KeyOrSessionRateLimit extends HttpApiMiddleware.Service<KeyOrSessionRateLimit, {
  requires: CurrentAnyPrincipal
}>()("@atrium/adapters-http/KeyOrSessionRateLimit", {
  error: [RateLimitedProblem, UnavailableProblem]
}) {}
