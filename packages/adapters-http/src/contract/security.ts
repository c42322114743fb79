import { CurrentPrincipal, type Permission, type Session } from "@atrium/domain"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Problems } from "./errors.ts"

/** The kinds of credential a route may accept. */
export type CredentialKind = "api_key" | "member"

/**
 * Group (or endpoint) annotation: which credentials `Authentication` accepts there, told apart by the token's shape.
 * Unannotated routes accept none (fail closed).
 */
export const AcceptedCredentials = Context.Reference<ReadonlyArray<CredentialKind>>("@atrium/adapters-http/AcceptedCredentials", {
  defaultValue: () => []
})

/** Endpoint (or group) annotation naming the `Permission` of the domain's access policy an operation needs. */
export const RequiredPermission = Context.Reference<Permission | undefined>("@atrium/adapters-http/RequiredPermission", {
  defaultValue: () => undefined
})

/** The one bearer scheme: a workspace API key or a member session access token, per route. */
export const bearer = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotateMerge(OpenApi.annotations({
    description: "`Authorization: Bearer <token>`: a workspace API key (`sk_live_…` / `sk_test_…`, acting in the key's " +
      "workspace under its scopes) on `/api/v1`, or a member session access token (`at_…`, acting in the session's " +
      "active workspace under the member's role) on `/api/auth` and `/api/mobile`; `/api/v1/ai-tasks` takes either. " +
      "A credential of a kind the route does not take is 401 `malformed_credentials`. Never put a credential in the URL.",
    format: "API key or session access token"
  }))
)

/**
 * THE authentication middleware: the bearer credential, by its shape, becomes the request's `CurrentPrincipal` — an API
 * key or a member session acting in its active workspace — when the route accepts that kind; else 400, 401, 403 or 503.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentPrincipal
}>()("@atrium/adapters-http/Authentication", {
  security: { bearer },
  error: [Problems.InvalidInput, Problems.ApiKeyRejected, Problems.SessionRejected, Problems.Forbidden, Problems.Unavailable]
}) {}

/** The live session of the request whatever its memberships (`/api/auth` session routes, switching, joining). */
export class CurrentSession extends Context.Service<CurrentSession, Session>()("@atrium/adapters-http/CurrentSession") {}

/**
 * The same authentication for routes that act on the session itself rather than in a workspace: the member may have
 * left the active workspace and must still sign out, switch or join. Member sessions only.
 */
export class SessionAuthentication extends HttpApiMiddleware.Service<SessionAuthentication, {
  provides: CurrentSession
}>()("@atrium/adapters-http/SessionAuthentication", {
  security: { bearer },
  error: [Problems.InvalidInput, Problems.SessionRejected, Problems.Unavailable]
}) {}

/** THE authorization middleware: the domain's `permits(principal, endpoint's RequiredPermission)`. */
export class Authorization extends HttpApiMiddleware.Service<Authorization, {
  requires: CurrentPrincipal
}>()("@atrium/adapters-http/Authorization", {
  error: [Problems.InsufficientScope, Problems.Forbidden]
}) {}

/** THE rate-limit middleware: requests per API key or session and window (429 `rate_limited`); after authentication. */
export class RateLimit extends HttpApiMiddleware.Service<RateLimit>()("@atrium/adapters-http/RateLimit", {
  error: [Problems.RateLimited, Problems.Unavailable]
}) {}

/**
 * Request decoding failures: a malformed id in the path is 404 `not_found` (as an unknown one), anything else 400
 * `invalid_request` naming each failed check in `errors`.
 */
export class RequestValidation extends HttpApiMiddleware.Service<RequestValidation>()("@atrium/adapters-http/RequestValidation", {
  error: [Problems.InvalidInput, Problems.NotFound]
}) {}

/** Marks every response of a group `Cache-Control: no-store`: they carry tokens and per-member data. */
export class NoStore extends HttpApiMiddleware.Service<NoStore>()("@atrium/adapters-http/NoStore") {}
