import type { CurrentPrincipal } from "@atrium/domain"
import { HttpApiMiddleware } from "effect/http-api"
import { RateLimitedProblem, UnavailableProblem } from "./problems.ts"

/** Counts requests per API key and refuses those over the limit (429 `rate_limited`). */
export class RateLimit extends HttpApiMiddleware.Service<RateLimit, {
  requires: CurrentPrincipal
}>()("@atrium/adapters-http/RateLimit", {
  error: [RateLimitedProblem, UnavailableProblem]
}) {}
