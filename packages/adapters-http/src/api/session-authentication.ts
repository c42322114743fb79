import { CurrentMember, type Session } from "@atrium/domain"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { ForbiddenProblem, SessionUnauthenticatedProblem } from "./identity-problems.ts"
import { InvalidRequestProblem, UnavailableProblem } from "./problems.ts"

/** The bearer scheme of `/api/auth` and `/api/mobile`: a member session access token (`at_…`). */
export const sessionBearer = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotateMerge(OpenApi.annotations({
    description: "Member session access token (`at_…`) from sign-up, sign-in or refresh, sent as " +
      "`Authorization: Bearer <token>`. API keys are refused here (401 `malformed_credentials`).",
    format: "session access token"
  }))
)

/** The live session of the request, with no membership check (`/api/auth/*`, organization switching, accepting invitations). */
export class CurrentSession extends Context.Service<CurrentSession, Session>()("@atrium/adapters-http/CurrentSession") {}

/** Resolves the access token to its live `CurrentSession`, or refuses it with 400, 401 or 503. */
export class SessionAuthentication extends HttpApiMiddleware.Service<SessionAuthentication, {
  provides: CurrentSession
}>()("@atrium/adapters-http/SessionAuthentication", {
  security: { session: sessionBearer },
  error: [InvalidRequestProblem, SessionUnauthenticatedProblem, UnavailableProblem]
}) {}

/**
 * Resolves the access token to the `CurrentMember` acting in the session's active workspace (membership read on every
 * request): 401 for the token, 403 `forbidden` when the member left the active workspace, 503 when it cannot be checked.
 */
export class MemberAuthentication extends HttpApiMiddleware.Service<MemberAuthentication, {
  provides: CurrentMember
}>()("@atrium/adapters-http/MemberAuthentication", {
  security: { session: sessionBearer },
  error: [InvalidRequestProblem, SessionUnauthenticatedProblem, ForbiddenProblem, UnavailableProblem]
}) {}
