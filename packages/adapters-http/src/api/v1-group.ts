import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { Authentication } from "./authentication.ts"
import { Authorization } from "./authorization.ts"
import { EntitlementList } from "./entitlement-view.ts"
import { ModelRequirementList } from "./model-requirement-view.ts"
import { NotFoundProblem, serverProblems } from "./problems.ts"
import { RateLimit } from "./rate-limit.ts"
import { RequiredScope } from "./required-scope.ts"
import { UsageView } from "./usage-view.ts"
import { WorkspaceView } from "./workspace-view.ts"

/** The public, API-key interface `/api/v1`. */
export class V1Group extends HttpApiGroup.make("v1")
  .add(
    HttpApiEndpoint.get("getCurrentWorkspace", "/workspaces/current", {
      success: WorkspaceView,
      error: [NotFoundProblem, ...serverProblems]
    })
      .annotate(RequiredScope, "read")
      .annotateMerge(OpenApi.annotations({
        summary: "The workspace of the API key",
        description: "The workspace is always the key's own; a workspace id in the query or headers changes nothing. Needs scope `read`."
      })),
    HttpApiEndpoint.get("listEntitlements", "/entitlements", {
      success: EntitlementList,
      error: serverProblems
    })
      .annotate(RequiredScope, "read")
      .annotateMerge(OpenApi.annotations({
        summary: "Feature grants in force",
        description: "Entitlements of the key's workspace that have not expired. Needs scope `read`."
      })),
    HttpApiEndpoint.get("listModelRequirements", "/models/requirements", {
      success: ModelRequirementList,
      error: serverProblems
    })
      .annotate(RequiredScope, "read")
      .annotateMerge(OpenApi.annotations({
        summary: "The model catalog",
        description: "Every model, its provider, prices in micro-USD per million tokens, limits and the feature it requires. Needs scope `read`."
      })),
    HttpApiEndpoint.get("getUsage", "/usage", {
      success: UsageView,
      error: serverProblems
    })
      .annotate(RequiredScope, "read")
      .annotateMerge(OpenApi.annotations({
        summary: "AI usage this month",
        description: "Spend, reservations and task count of the current UTC month, the caps, and the credit balance. Needs scope `read`."
      }))
  )
  // Listed innermost first: authentication runs outermost, then the rate limit, then the scope check.
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(Authorization)
  .middleware(RateLimit)
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotateMerge(OpenApi.annotations({
    title: "v1",
    description: "Public interface for integrators, authenticated with a workspace API key."
  }))
{}
