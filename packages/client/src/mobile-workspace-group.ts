import { AppearanceBundle } from "@atrium/domain"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { memberRoutes } from "./front-door.ts"
import { RequiredPermission } from "./security.ts"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AppearanceWithEtag, AppearanceWriteHeaders } from "./appearance-schemas.ts"
import { MobileEntitlementView } from "./entitlement-access.ts"
import { UsageView } from "./usage-view.ts"

/** `/api/mobile` reads and settings of the active workspace that every member may use. */
export class MobileWorkspaceGroup extends HttpApiGroup.make("mobileWorkspace")
  .add(
    HttpApiEndpoint.get("getEntitlement", "/entitlement", {
      success: MobileEntitlementView,
      error: serverErrors
    }).annotate(RequiredPermission, "entitlements.read").annotateMerge(docs("What the workspace unlocks", "`access`, the entitlements in force, and the member's role.")),
    HttpApiEndpoint.get("getUsage", "/usage", {
      success: UsageView,
      error: serverErrors
    }).annotate(RequiredPermission, "usage.read").annotateMerge(docs("AI usage this month", "The same answer as `GET /api/v1/usage`.")),
    HttpApiEndpoint.get("getAppearance", "/appearance", {
      success: AppearanceWithEtag,
      error: [Problems.Forbidden, ...serverErrors]
    }).annotate(RequiredPermission, "appearance.read").annotateMerge(docs("The member's appearance", "The bundle (defaults until saved) and its `ETag`.")),
    HttpApiEndpoint.put("putAppearance", "/appearance", {
      headers: AppearanceWriteHeaders,
      payload: AppearanceBundle,
      success: AppearanceWithEtag,
      error: [Problems.InvalidInput, Problems.Forbidden, Problems.PreconditionFailed, Problems.PreconditionRequired, ...serverErrors]
    }).annotate(RequiredPermission, "appearance.write").annotateMerge(docs(
      "Save the member's appearance",
      "Replaces the bundle when `If-Match` names the current `ETag`: missing is 428 `precondition_required`, stale " +
        "412 `precondition_failed` (with `currentEtag`) and nothing is written. Answers the saved bundle and its new `ETag`."
    ))
  )
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({ title: "mobile: workspace", description: "The active workspace, as any member sees it." }))
{}
