import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { docs } from "./endpoint-docs.ts"
import { EntitlementList } from "./entitlement-view.ts"
import { Problems, serverErrors } from "./errors.ts"
import { v1Routes } from "./front-door.ts"
import { ModelRequirementList } from "./model-requirement-view.ts"
import { RequiredPermission } from "./security.ts"
import { UsageView } from "./usage-view.ts"
import { WorkspaceView } from "./workspace-view.ts"

/** The public, API-key interface `/api/v1`. */
export class V1Group extends HttpApiGroup.make("v1")
  .add(
    HttpApiEndpoint.get("getCurrentWorkspace", "/workspaces/current", {
      success: WorkspaceView,
      error: [Problems.NotFound, ...serverErrors]
    })
      .annotate(RequiredPermission, "workspace.read")
      .annotateMerge(docs(
        "The workspace of the API key",
        "The workspace is always the key's own; a workspace id in the query or headers changes nothing. Needs scope `read`."
      )),
    HttpApiEndpoint.get("listEntitlements", "/entitlements", {
      success: EntitlementList,
      error: serverErrors
    })
      .annotate(RequiredPermission, "entitlements.read")
      .annotateMerge(docs(
        "Feature grants in force",
        "Entitlements of the key's workspace that have not expired. Needs scope `read`."
      )),
    HttpApiEndpoint.get("listModelRequirements", "/models/requirements", {
      success: ModelRequirementList,
      error: serverErrors
    })
      .annotate(RequiredPermission, "models.read")
      .annotateMerge(docs(
        "The model catalog",
        "Every model, its provider, prices in micro-USD per million tokens, limits and the feature it requires. Needs scope `read`."
      )),
    HttpApiEndpoint.get("getUsage", "/usage", {
      success: UsageView,
      error: serverErrors
    })
      .annotate(RequiredPermission, "usage.read")
      .annotateMerge(docs(
        "AI usage this month",
        "Spend, reservations and task count of the current UTC month, the caps, and the credit balance. Needs scope `read`."
      ))
  )
  .pipe(v1Routes(["api_key"]))
  .annotateMerge(OpenApi.annotations({
    title: "v1",
    description: "Public interface for integrators, authenticated with a workspace API key."
  }))
{}
