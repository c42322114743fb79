import { Actor, InvitationDelivery, InvitationId, InvitationStatus, MembershipId, Role, SafeText, WorkspaceId } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"

const isoTime = (description: string) => Schema.String.annotate({ format: "date-time", description: `${description}, ISO-8601 UTC` })

/** An invitation, never its token. */
export const InvitationView = Schema.Struct({
  id: InvitationId,
  email: Schema.String,
  role: Role,
  status: InvitationStatus,
  invitedBy: Actor,
  createdAt: isoTime("Creation time"),
  expiresAt: isoTime("When the token stops working"),
  acceptedAt: Schema.NullOr(isoTime("Acceptance time")),
  delivery: Schema.NullOr(InvitationDelivery).annotate({
    description: "Where the invitation mail stands; `failed` means the invitee never got the link (invite again or send the token yourself). Null when it was never mailed."
  })
}).annotate({ identifier: "Invitation" })
export type InvitationView = typeof InvitationView.Type

/** One page of invitations, newest first. */
export const InvitationList = Schema.Struct({ data: Schema.Array(InvitationView), nextCursor: NextCursor }).annotate({ identifier: "InvitationList" })

/** `POST /api/mobile/invitations`. */
export const CreateInvitation = Schema.Struct({
  email: SafeText.check(Schema.isBetweenLength(1, 254)).annotate({ description: "Who may accept it: their account's email must match" }),
  role: Role.annotate({ description: "The role they join with; only owners invite owners" })
}).annotate({ identifier: "CreateInvitation" })

/** 201 of creating an invitation: the token, shown only now, to send to the invitee. */
export const InvitationCreated = Schema.Struct({
  invitation: InvitationView,
  token: Schema.String.annotate({ description: "The invitation token (`it_…`), shown only now" })
}).annotate({ identifier: "InvitationCreated" })

/** `POST /api/mobile/invitations/accept`. */
export const AcceptInvitation = Schema.Struct({
  token: SafeText.check(Schema.isBetweenLength(1, 256)).annotate({ description: "The invitation token (`it_…`)" })
}).annotate({ identifier: "AcceptInvitation" })

/** The membership an accepted invitation created. */
export const InvitationAccepted = Schema.Struct({
  workspaceId: WorkspaceId,
  membershipId: MembershipId,
  role: Role
}).annotate({ identifier: "InvitationAccepted", description: "Switch to `workspaceId` with `PUT /api/mobile/organization/active` to act in it" })
