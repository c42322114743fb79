import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { ConflictProblem } from "./business-problems.ts"
import { ForbiddenProblem } from "./identity-problems.ts"
import { AcceptInvitation, InvitationAccepted } from "./invitation-schemas.ts"
import { NoStore } from "./no-store.ts"
import { OrganizationView, SwitchWorkspaceRequest } from "./organization-view.ts"
import { InvalidRequestProblem, NotFoundProblem, serverProblems } from "./problems.ts"
import { SessionAuthentication } from "./session-authentication.ts"
import { strictPayloads } from "./strict-payloads.ts"

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/**
 * `/api/mobile` routes that work for any live session, even one whose member was removed from the active workspace:
 * they are how the app finds and switches to another workspace, or joins one.
 */
export class MobileSessionGroup extends HttpApiGroup.make("mobileSession")
  .add(
    HttpApiEndpoint.get("getOrganization", "/organization", {
      success: OrganizationView,
      error: serverProblems
    }).annotateMerge(docs("The active workspace and all of the user's", "The active workspace and role, and every workspace the user belongs to.")),
    HttpApiEndpoint.put("switchWorkspace", "/organization/active", {
      payload: SwitchWorkspaceRequest,
      success: OrganizationView,
      error: [InvalidRequestProblem, NotFoundProblem, ...serverProblems]
    }).annotateMerge(docs("Switch the active workspace", "Only to a workspace the user belongs to; any other is 404 `not_found`.")),
    HttpApiEndpoint.post("acceptInvitation", "/invitations/accept", {
      payload: AcceptInvitation,
      success: InvitationAccepted,
      error: [InvalidRequestProblem, NotFoundProblem, ForbiddenProblem, ConflictProblem, ...serverProblems]
    }).annotateMerge(docs(
      "Accept an invitation",
      "Joins the signed-in user to the invitation's workspace when their account email is the invitation's (else 403 " +
        "`forbidden`). Unknown or revoked tokens are 404; accepted or expired ones, or an existing member, 409 `conflict`."
    ))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(SessionAuthentication)
  .middleware(NoStore)
  .prefix("/api/mobile")
  .annotateMerge(OpenApi.annotations({ title: "mobile: organization", description: "Which workspace the session acts in." }))
{}
