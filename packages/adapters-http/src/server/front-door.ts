import type { HttpApiEndpoint } from "effect/http-api"
import { Authentication, Authorization, NoStore, RateLimit, RequestValidation, SessionAuthentication } from "@atrium/client"

/**
 * Whether an authentication middleware guards `endpoint`. It then runs the rest of the route's front door — `no-store`,
 * the rate limit, the permission check and request validation, as declared — in its own step, in the contract's
 * order (contract/front-door.ts), and those middleware hand the route over untouched: one step per request, not five.
 */
export const isBehindDoor = (endpoint: HttpApiEndpoint.Top): boolean =>
  endpoint.middlewares.has(Authentication) || endpoint.middlewares.has(SessionAuthentication)

/**
 * Whether the door of `endpoint` checks its permission: only `Authentication`'s does (it knows the principal). Behind
 * `SessionAuthentication` a declared `Authorization` still acts alone — and, finding no principal, refuses (500).
 */
export const isPermissionCheckedAtDoor = (endpoint: HttpApiEndpoint.Top): boolean => endpoint.middlewares.has(Authentication)

/** The steps a route's door takes besides authentication: what its middleware chain declares. */
export interface DoorSteps {
  readonly noStore: boolean
  readonly rateLimit: boolean
  readonly authorization: boolean
  readonly validation: boolean
}

/** The door of `endpoint`, read once when its route is built. */
export const doorStepsOf = (endpoint: HttpApiEndpoint.Top): DoorSteps => ({
  noStore: endpoint.middlewares.has(NoStore),
  rateLimit: endpoint.middlewares.has(RateLimit),
  authorization: endpoint.middlewares.has(Authorization),
  validation: endpoint.middlewares.has(RequestValidation)
})
