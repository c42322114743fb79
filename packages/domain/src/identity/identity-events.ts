import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { Role } from "../access/index.ts"
import { IsoTime } from "../shared/index.ts"

/** A member as identity events carry it. */
export const MemberSummary = Schema.Struct({
  id: Schema.String.annotate({ description: "Membership id (mem_…)" }),
  userId: Schema.String.annotate({ description: "User id (usr_…)" }),
  role: Role
}).annotate({ identifier: "MemberSummary" })

/** An invitation as identity events carry it. */
export const InvitationSummary = Schema.Struct({
  id: Schema.String.annotate({ description: "Invitation id (inv_…)" }),
  email: Schema.String,
  role: Role,
  expiresAt: IsoTime
}).annotate({ identifier: "InvitationSummary" })

/** Events of the identity area: members and invitations. */
export const IdentityEvents = {
  memberJoined: defineEvent("member.joined", "A user joined the workspace.", Schema.Struct({ member: MemberSummary })),
  memberRemoved: defineEvent("member.removed", "A member was removed from the workspace.", Schema.Struct({ member: MemberSummary })),
  memberRoleChanged: defineEvent("member.role_changed", "A member's role changed.", Schema.Struct({ member: MemberSummary, previousRole: Role })),
  invitationCreated: defineEvent(
    "invitation.created",
    "Someone was invited to the workspace (the invitation token is never included).",
    Schema.Struct({ invitation: InvitationSummary })
  ),
  invitationAccepted: defineEvent(
    "invitation.accepted",
    "An invitation was accepted and its user joined.",
    Schema.Struct({ invitation: InvitationSummary, member: MemberSummary })
  )
}
