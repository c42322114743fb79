import { AppearanceBundle } from "@atrium/domain"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { AppearanceWithEtag, AppearanceWriteHeaders } from "./appearance-schemas.ts"
import { ForbiddenProblem, PreconditionFailedProblem, PreconditionRequiredProblem } from "./identity-problems.ts"
import { MemberAuthentication } from "./session-authentication.ts"
import { MemberAuthorization } from "./member-authorization.ts"
import { MobileEntitlementView } from "./entitlement-access.ts"
import { NoStore } from "./no-store.ts"
import { InvalidRequestProblem, serverProblems } from "./problems.ts"
import { RequiredAction } from "./required-action.ts"
import { strictPayloads } from "./strict-payloads.ts"
import { UsageView } from "./usage-view.ts"

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/** `/api/mobile` reads and settings of the active workspace that every member may use. */
export class MobileWorkspaceGroup extends HttpApiGroup.make("mobileWorkspace")
  .add(
    HttpApiEndpoint.get("getEntitlement", "/entitlement", {
      success: MobileEntitlementView,
      error: serverProblems
    }).annotate(RequiredAction, "entitlement.read").annotateMerge(docs("What the workspace unlocks", "`access`, the entitlements in force, and the member's role.")),
    HttpApiEndpoint.get("getUsage", "/usage", {
      success: UsageView,
      error: serverProblems
    }).annotate(RequiredAction, "usage.read").annotateMerge(docs("AI usage this month", "The same answer as `GET /api/v1/usage`.")),
    HttpApiEndpoint.get("getAppearance", "/appearance", {
      success: AppearanceWithEtag,
      error: [ForbiddenProblem, ...serverProblems]
    }).annotate(RequiredAction, "appearance.read").annotateMerge(docs("The member's appearance", "The bundle (defaults until saved) and its `ETag`.")),
    HttpApiEndpoint.put("putAppearance", "/appearance", {
      headers: AppearanceWriteHeaders,
      payload: AppearanceBundle,
      success: AppearanceWithEtag,
      error: [InvalidRequestProblem, ForbiddenProblem, PreconditionFailedProblem, PreconditionRequiredProblem, ...serverProblems]
    }).annotate(RequiredAction, "appearance.write").annotateMerge(docs(
      "Save the member's appearance",
      "Replaces the bundle when `If-Match` names the current `ETag`: missing is 428 `precondition_required`, stale " +
        "412 `precondition_failed` (with `currentEtag`) and nothing is written. Answers the saved bundle and its new `ETag`."
    ))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(MemberAuthorization)
  .middleware(MemberAuthentication)
  .middleware(NoStore)
  .prefix("/api/mobile")
  .annotateMerge(OpenApi.annotations({ title: "mobile: workspace", description: "The active workspace, as any member sees it." }))
{}
