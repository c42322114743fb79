import { CurrentPrincipal, type Permission, type Session } from "@atrium/domain"
import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
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

/**
 * The operations behind authentication, as OpenAPI states them: `Authorization: Bearer <token>`. Declared here, not by
 * a security middleware, because the authentication middleware reads the header itself (one step per request instead
 * of the framework's security wrapper); the documents name the scheme (`bearer`) per interface.
 */
export const bearerRequired = { security: [{ bearer: [] }] }

/**
 * THE authentication middleware: the bearer credential, by its shape, becomes the request's `CurrentPrincipal` — an API
 * key or a member session acting in its active workspace — when the route accepts that kind; else 400, 401, 403 or 503.
 * The server runs the rest of the route's front door (rate limit, permission, validation) in the same step, so its
 * refusals are listed here too; every route lists them anyway through their own middleware, declared with this one.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentPrincipal
}>()("@atrium/adapters-http/Authentication", {
  error: [
    Problems.InvalidInput,
    Problems.ApiKeyRejected,
    Problems.SessionRejected,
    Problems.Forbidden,
    Problems.Unavailable,
    Problems.RateLimited,
    Problems.InsufficientScope,
    Problems.NotFound
  ]
}) {}

/** The live session of the request whatever its memberships (`/api/auth` session routes, switching, joining). */
export class CurrentSession extends Context.Service<CurrentSession, Session>()("@atrium/adapters-http/CurrentSession") {}

/**
 * The same authentication for routes that act on the session itself rather than in a workspace: the member may have
 * left the active workspace and must still sign out, switch or join. Member sessions only. Like `Authentication`, it
 * runs the route's rate limit and validation in the same step, and lists their refusals.
 */
export class SessionAuthentication extends HttpApiMiddleware.Service<SessionAuthentication, {
  provides: CurrentSession
}>()("@atrium/adapters-http/SessionAuthentication", {
  error: [Problems.InvalidInput, Problems.SessionRejected, Problems.Unavailable, Problems.RateLimited, Problems.NotFound]
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
