import { ApiKey, AuditEntry, deriveView, Invitation, type InvitationDelivery, type IssuedSession, type Member, Membership, type OrganizationView, SessionView, User } from "@atrium/domain"
import { DateTime, Option, Redacted } from "effect"
import { AuditEntryView, ManagedApiKeyView, SessionSummaryView, type SessionTokens, UserView } from "@atrium/client"
import { InvitationView } from "@atrium/client"
import { MembershipView, type MemberView } from "@atrium/client"
import type { OrganizationView as OrganizationWireSchema } from "@atrium/client"
import { toWorkspaceView } from "./views.ts"

type OrganizationWire = typeof OrganizationWireSchema.Type

/** A user on the wire: whether the address is verified, not when. */
const userView = deriveView(User, UserView, { withheld: ["emailVerifiedAt"] })
export const toUserView = (user: User): UserView => userView(user, { emailVerified: user.emailVerified })

/** The contract's `session`: the only place the tokens leave their `Redacted` wrappers. */
export const toSessionTokens = (issued: IssuedSession): SessionTokens => ({
  accessToken: Redacted.value(issued.accessToken),
  accessTokenExpiresAt: DateTime.formatIso(issued.accessTokenExpiresAt),
  refreshToken: Redacted.value(issued.refreshToken),
  refreshTokenExpiresAt: DateTime.formatIso(issued.refreshTokenExpiresAt)
})

/** A listed session on the wire (the domain's session list already withholds the digests). */
export const toSessionSummaryView = deriveView(SessionView, SessionSummaryView, { withheld: [] })

/** A membership on the wire: its workspace is the caller's. */
export const toMembershipView = deriveView(Membership, MembershipView, { withheld: ["workspaceId"], renamed: { joinedAt: "createdAt" } })

/** A member with their user on the wire: the membership, and who the user is. */
export const toMemberView = ({ membership, user }: Member): MemberView => ({
  ...toMembershipView(membership),
  email: user.email,
  name: user.name
})

/** The session's organization on the wire. */
export const toOrganizationView = (view: OrganizationView, features: OrganizationWire["features"]): OrganizationWire => ({
  features,
  workspace: Option.getOrNull(Option.map(view.workspace, toWorkspaceView)),
  role: Option.getOrNull(view.role),
  memberships: view.memberships.map((joined) => ({
    workspace: toWorkspaceView(joined.workspace),
    role: joined.membership.role,
    membershipId: joined.membership.id
  }))
})

/** An invitation on the wire, with its status at `now` and where its mail stands; never its token digest. */
const invitationView = deriveView(Invitation, InvitationView, { withheld: ["workspaceId", "tokenDigest", "acceptedBy", "revokedAt"] })
export const toInvitationView = (invitation: Invitation, now: DateTime.Utc, delivery: Option.Option<InvitationDelivery>): InvitationView =>
  invitationView(invitation, { status: invitation.statusAt(now), delivery: Option.getOrNull(delivery) })

/** An audit entry on the wire: its workspace is the caller's. */
export const toAuditEntryView = deriveView(AuditEntry, AuditEntryView, { withheld: ["workspaceId"] })

/** An API key as Settings → Developers lists it: with its creator, never its digest. */
export const toManagedApiKeyView = deriveView(ApiKey, ManagedApiKeyView, { withheld: ["workspaceId", "digest"], renamed: { prefix: "displayPrefix" } })
