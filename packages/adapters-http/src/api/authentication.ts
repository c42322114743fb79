import { CurrentPrincipal } from "@atrium/domain"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { InvalidRequestProblem, UnauthenticatedProblem, UnavailableProblem } from "./problems.ts"

/** The bearer scheme of `/api/v1`: a workspace API key `sk_live_…` / `sk_test_…`. */
export const apiKeyBearer = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotateMerge(OpenApi.annotations({
    description: "Workspace API key (`sk_live_…` or `sk_test_…`) sent as `Authorization: Bearer <key>`. Never put a key in the URL.",
    format: "API key"
  }))
)

/** Resolves the API key of the request to the `CurrentPrincipal`, or refuses it with 400, 401 or 503. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentPrincipal
}>()("@atrium/adapters-http/Authentication", {
  security: { bearer: apiKeyBearer },
  error: [InvalidRequestProblem, UnauthenticatedProblem, UnavailableProblem]
}) {}
