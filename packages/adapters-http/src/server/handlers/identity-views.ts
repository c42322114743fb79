import type { ApiKey, AuditEntry, Invitation, InvitationDelivery, IssuedSession, Member, Membership, OrganizationView, SessionView, User } from "@atrium/domain"
import { toApiKeyView } from "@atrium/domain"
import { DateTime, Option, Redacted } from "effect"
import type { AuditEntryView } from "../../contract/audit-schemas.ts"
import type { SessionSummaryView, SessionTokens, UserView } from "../../contract/auth-schemas.ts"
import type { InvitationView } from "../../contract/invitation-schemas.ts"
import type { ManagedApiKeyView } from "../../contract/managed-api-key-schemas.ts"
import type { MembershipView, MemberView } from "../../contract/member-schemas.ts"
import type { OrganizationView as OrganizationWireSchema } from "../../contract/organization-view.ts"
import { toWorkspaceView } from "./views.ts"

type OrganizationWire = typeof OrganizationWireSchema.Type

const iso = DateTime.formatIso
const isoOrNull = (time: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(time, iso))

/** A user on the wire. */
export const toUserView = (user: User): UserView => ({
  id: user.id,
  email: user.email,
  name: user.name,
  createdAt: iso(user.createdAt),
  emailVerified: user.emailVerified
})

/** The contract's `session`: the only place the tokens leave their `Redacted` wrappers. */
export const toSessionTokens = (issued: IssuedSession): SessionTokens => ({
  accessToken: Redacted.value(issued.accessToken),
  accessTokenExpiresAt: iso(issued.accessTokenExpiresAt),
  refreshToken: Redacted.value(issued.refreshToken),
  refreshTokenExpiresAt: iso(issued.refreshTokenExpiresAt)
})

/** A listed session on the wire. */
export const toSessionSummaryView = (session: SessionView): SessionSummaryView => ({
  id: session.id,
  activeWorkspaceId: session.activeWorkspaceId,
  createdAt: iso(session.createdAt),
  lastUsedAt: iso(session.lastUsedAt),
  expiresAt: iso(session.expiresAt),
  userAgent: session.userAgent,
  current: session.current
})

/** A member with their user on the wire. */
export const toMemberView = (member: Member): MemberView => ({
  id: member.membership.id,
  userId: member.user.id,
  email: member.user.email,
  name: member.user.name,
  role: member.membership.role,
  joinedAt: iso(member.membership.createdAt)
})

/** A membership on the wire. */
export const toMembershipView = (membership: Membership): MembershipView => ({
  id: membership.id,
  userId: membership.userId,
  role: membership.role,
  joinedAt: iso(membership.createdAt)
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

/** An invitation on the wire, with its status at `now` and where its mail stands; never its token or digest. */
export const toInvitationView = (invitation: Invitation, now: DateTime.Utc, delivery: Option.Option<InvitationDelivery>): InvitationView => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  status: invitation.statusAt(now),
  invitedBy: invitation.invitedBy,
  createdAt: iso(invitation.createdAt),
  expiresAt: iso(invitation.expiresAt),
  acceptedAt: isoOrNull(invitation.acceptedAt),
  delivery: Option.getOrNull(delivery)
})

/** An audit entry on the wire. */
export const toAuditEntryView = (entry: AuditEntry): AuditEntryView => ({
  id: entry.id,
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  createdAt: iso(entry.createdAt),
  requestId: Option.getOrNull(entry.requestId)
})

/** An API key as Settings → Developers lists it. */
export const toManagedApiKeyView = (key: ApiKey): ManagedApiKeyView => ({ ...toApiKeyView(key), createdBy: key.createdBy })
