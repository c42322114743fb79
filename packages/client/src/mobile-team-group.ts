import { InvitationId, MembershipId } from "@atrium/domain"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { memberRoutes } from "./front-door.ts"
import { RequiredPermission } from "./security.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AuditList } from "./audit-schemas.ts"
import { CreateInvitation, InvitationCreated, InvitationList } from "./invitation-schemas.ts"
import { ChangeMemberRole, MemberList, MembershipView } from "./member-schemas.ts"
import { PageQuery } from "./page-query.ts"

/** `/api/mobile` team management: members, invitations and the audit log of the active workspace. */
export class MobileTeamGroup extends HttpApiGroup.make("mobileTeam")
  .add(
    HttpApiEndpoint.get("listMembers", "/members", {
      query: PageQuery,
      success: MemberList,
      error: serverErrors
    }).annotate(RequiredPermission, "members.manage").annotateMerge(docs("List members", "Oldest first. Admins and owners.")),
    HttpApiEndpoint.patch("changeMemberRole", "/members/:id", {
      params: { id: MembershipId },
      payload: ChangeMemberRole,
      success: MembershipView,
      error: [Problems.InvalidInput, Problems.NotFound, Problems.Forbidden, Problems.Conflict, ...serverErrors]
    }).annotate(RequiredPermission, "members.manage").annotateMerge(docs(
      "Change a member's role",
      "Admins move non-owners between admin and member; only owners grant, change or take `owner` (else 403). The last " +
        "owner cannot be demoted (409 `conflict`)."
    )),
    // Anyone may remove themselves (leave): the domain applies `member.manage` to removing someone else.
    HttpApiEndpoint.delete("removeMember", "/members/:id", {
      params: { id: MembershipId },
      error: [Problems.NotFound, Problems.Forbidden, Problems.Conflict, ...serverErrors]
    }).annotate(RequiredPermission, "workspace.read").annotateMerge(docs(
      "Remove a member, or leave",
      "Admins remove non-owners, owners anyone, and every member themselves. The last owner cannot go (409 `conflict`)."
    )),
    HttpApiEndpoint.get("listInvitations", "/invitations", {
      query: PageQuery,
      success: InvitationList,
      error: serverErrors
    }).annotate(RequiredPermission, "invitations.manage").annotateMerge(docs("List invitations", "Newest first, with their status. Admins and owners.")),
    HttpApiEndpoint.post("createInvitation", "/invitations", {
      payload: CreateInvitation,
      success: InvitationCreated.pipe(HttpApiSchema.status(201)),
      error: [Problems.InvalidInput, Problems.Forbidden, Problems.Conflict, ...serverErrors]
    }).annotate(RequiredPermission, "invitations.manage").annotateMerge(docs(
      "Invite someone",
      "Answers the token once; it works for 7 days, for the account with that email only. Only owners invite owners."
    )),
    HttpApiEndpoint.delete("revokeInvitation", "/invitations/:id", {
      params: { id: InvitationId },
      error: [Problems.NotFound, Problems.Conflict, ...serverErrors]
    }).annotate(RequiredPermission, "invitations.manage").annotateMerge(docs("Revoke an invitation", "Its token stops working. An accepted one is 409 `conflict`.")),
    HttpApiEndpoint.get("listAudit", "/audit", {
      query: PageQuery,
      success: AuditList,
      error: serverErrors
    }).annotate(RequiredPermission, "audit.read").annotateMerge(docs("The audit log", "Newest first: actor, action, target, time and request id. Admins and owners."))
  )
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({ title: "mobile: team", description: "Members, invitations and the audit log." }))
{}
