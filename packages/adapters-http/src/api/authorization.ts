import type { CurrentPrincipal } from "@atrium/domain"
import { HttpApiMiddleware } from "effect/http-api"
import { InsufficientScopeProblem } from "./problems.ts"

/** Checks the principal's scopes against the endpoint's `RequiredScope` (403 `insufficient_scope`). */
export class Authorization extends HttpApiMiddleware.Service<Authorization, {
  requires: CurrentPrincipal
}>()("@atrium/adapters-http/Authorization", {
  error: InsufficientScopeProblem
}) {}
