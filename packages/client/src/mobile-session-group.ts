import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { sessionRoutes } from "./front-door.ts"
import { AcceptInvitation, InvitationAccepted } from "./invitation-schemas.ts"
import { OrganizationView, SwitchWorkspaceRequest } from "./organization-view.ts"

/**
 * `/api/mobile` routes that work for any live session, even one whose member was removed from the active workspace:
 * they are how the app finds and switches to another workspace, or joins one.
 */
export class MobileSessionGroup extends HttpApiGroup.make("mobileSession")
  .add(
    HttpApiEndpoint.get("getOrganization", "/organization", {
      success: OrganizationView,
      error: serverErrors
    }).annotateMerge(docs("The active workspace and all of the user's", "The active workspace and role, and every workspace the user belongs to.")),
    HttpApiEndpoint.put("switchWorkspace", "/organization/active", {
      payload: SwitchWorkspaceRequest,
      success: OrganizationView,
      error: [Problems.InvalidInput, Problems.NotFound, ...serverErrors]
    }).annotateMerge(docs("Switch the active workspace", "Only to a workspace the user belongs to; any other is 404 `not_found`.")),
    HttpApiEndpoint.post("acceptInvitation", "/invitations/accept", {
      payload: AcceptInvitation,
      success: InvitationAccepted,
      error: [Problems.InvalidInput, Problems.NotFound, Problems.Forbidden, Problems.Conflict, Problems.RateLimited, ...serverErrors]
    }).annotateMerge(docs(
      "Accept an invitation",
      "Joins the signed-in user to the invitation's workspace when their account email is the invitation's (else 403 " +
        "`forbidden`). Unknown or revoked tokens are 404; accepted or expired ones, or an existing member, 409 `conflict`."
    ))
  )
  .pipe(sessionRoutes("/api/mobile"))
  .annotateMerge(OpenApi.annotations({ title: "mobile: organization", description: "Which workspace the session acts in." }))
{}
