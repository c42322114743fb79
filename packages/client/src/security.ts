import { CurrentPrincipal, type Permission, type Session } from "@atrium/domain"
import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { Problems } from "./errors.ts"

/** The kinds of credential a route may accept. */
export type CredentialKind = "api_key" | "member"

/**
 * Group (or endpoint) annotation: which credentials `V1Gate` accepts there, told apart by the token's shape.
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
 * The operations behind a bearer credential, as OpenAPI states them: `Authorization: Bearer <token>`. Declared here, not
 * by a security middleware, because the gates read the header themselves (one step per request instead of the
 * framework's security wrapper); the documents name the scheme (`bearer`) per interface.
 */
export const bearerRequired = { security: [{ bearer: [] }] }

// The contract's four gates: each group declares exactly one, and the server runs exactly what its gate's comment says,
// in that order, in one step per request. A gate's errors are every refusal of its steps (the documents list them).

/** The refusals of a gate that finds the request's principal: its request, credential, limit and permission. */
const principalRefusals = [
  Problems.InvalidInput,
  Problems.NotFound,
  Problems.InsufficientScope,
  Problems.Forbidden,
  Problems.RateLimited,
  Problems.Unavailable,
  Problems.ApiKeyRejected,
  Problems.SessionRejected
]

/**
 * `/api/v1`: the bearer credential — an API key, or a member session where the group's `AcceptedCredentials` allow —
 * becomes the request's `CurrentPrincipal` (else 400, 401, or 503 when a lookup fails), then the request limit per
 * principal (429), then the endpoint's `RequiredPermission` (403), then request validation (400, or 404 for a
 * malformed id). Answers may be cached by the client.
 */
export class V1Gate extends HttpApiMiddleware.Service<V1Gate, {
  provides: CurrentPrincipal
}>()("@atrium/adapters-http/V1Gate", { error: principalRefusals }) {}

/**
 * `/api/mobile` in the session's active workspace: `V1Gate`'s steps for a member session only (an API key is 401
 * `malformed_credentials`; a member no longer in the active workspace 403), and every answer, refusals too, `no-store`.
 */
export class MobileGate extends HttpApiMiddleware.Service<MobileGate, {
  provides: CurrentPrincipal
}>()("@atrium/adapters-http/MobileGate", { error: principalRefusals }) {}

/** The live session of the request whatever its memberships (`/api/auth` session routes, switching, joining). */
export class CurrentSession extends Context.Service<CurrentSession, Session>()("@atrium/adapters-http/CurrentSession") {}

/**
 * Routes on the session itself (`/api/auth`, and `/api/mobile` for switching and joining), for a member who may have
 * left the active workspace: the access token becomes the `CurrentSession` (else 400, 401, 503), then the request
 * limit per session (429), then request validation (400, 404); no permission; every answer `no-store`.
 */
export class SessionGate extends HttpApiMiddleware.Service<SessionGate, {
  provides: CurrentSession
}>()("@atrium/adapters-http/SessionGate", {
  error: [Problems.InvalidInput, Problems.NotFound, Problems.RateLimited, Problems.Unavailable, Problems.SessionRejected]
}) {}

/**
 * Routes without a bearer credential (signing up and in, the mailed links, the stores' signed notifications): request
 * validation alone (400, or 404 for a malformed id), every answer `no-store`. Their handlers throttle per address.
 */
export class PublicGate extends HttpApiMiddleware.Service<PublicGate>()("@atrium/adapters-http/PublicGate", {
  error: [Problems.InvalidInput, Problems.NotFound]
}) {}
