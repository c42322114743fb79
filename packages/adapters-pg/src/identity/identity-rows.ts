import { AppearanceSettings, Invitation, Membership, Session, User, Workspace } from "@atrium/domain"
import { Schema } from "effect"

/** The `users` row without its password hash, as the driver returns it (`timestamptz` as `Date`). */
export const UserRow = Schema.Struct({
  ...User.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  emailVerifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({ createdAt: "created_at", emailVerifiedAt: "email_verified_at" }))

/** The `users` row with its password hash. */
export const UserCredentialsRow = Schema.Struct({
  ...User.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  emailVerifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  passwordHash: Schema.String
}).pipe(Schema.encodeKeys({ createdAt: "created_at", emailVerifiedAt: "email_verified_at", passwordHash: "password_hash" }))

/** The `memberships` row. */
export const MembershipRow = Schema.Struct({
  ...Membership.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(Schema.encodeKeys({ workspaceId: "workspace_id", userId: "user_id", createdAt: "created_at" }))

/** The user half of a member-list row, its columns prefixed `user_` (the membership's `user_id` is its id). */
export const MemberUserRow = Schema.Struct({
  ...User.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  emailVerifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  id: "user_id",
  email: "user_email",
  name: "user_name",
  createdAt: "user_created_at",
  emailVerifiedAt: "user_email_verified_at"
}))

/** The workspace half of an organization row, its columns prefixed `workspace_` (the membership's `workspace_id` is its id). */
export const MembershipWorkspaceRow = Schema.Struct({
  ...Workspace.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(Schema.encodeKeys({
  id: "workspace_id",
  name: "workspace_name",
  slug: "workspace_slug",
  personal: "workspace_personal",
  createdAt: "workspace_created_at"
}))

/** The `sessions` row. */
export const SessionRow = Schema.Struct({
  ...Session.fields,
  accessExpiresAt: Schema.DateTimeUtcFromDate,
  refreshExpiresAt: Schema.DateTimeUtcFromDate,
  createdAt: Schema.DateTimeUtcFromDate,
  lastUsedAt: Schema.DateTimeUtcFromDate,
  revokedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  userId: "user_id",
  activeWorkspaceId: "active_workspace_id",
  accessDigest: "access_digest",
  rotationSalt: "rotation_salt",
  accessExpiresAt: "access_expires_at",
  refreshDigest: "refresh_digest",
  refreshExpiresAt: "refresh_expires_at",
  createdAt: "created_at",
  lastUsedAt: "last_used_at",
  revokedAt: "revoked_at",
  revokeReason: "revoke_reason",
  userAgent: "user_agent"
}))

/** The `invitations` row (`invited_by` as parsed `jsonb`). */
export const InvitationRow = Schema.Struct({
  ...Invitation.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.DateTimeUtcFromDate,
  acceptedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  revokedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  tokenDigest: "token_digest",
  invitedBy: "invited_by",
  createdAt: "created_at",
  expiresAt: "expires_at",
  acceptedAt: "accepted_at",
  acceptedBy: "accepted_by",
  revokedAt: "revoked_at"
}))

/** The `appearance_bundles` row (`bundle` as parsed `jsonb`, checked against the domain's schema). */
export const AppearanceRow = Schema.Struct({
  ...AppearanceSettings.fields,
  updatedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({ workspaceId: "workspace_id", userId: "user_id", updatedAt: "updated_at" }))
