import { AppearanceSettings, Invitation, Membership, Session, User, Workspace } from "@atrium/domain"
import { Schema } from "effect"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"

/** A user as the driver returns it (`timestamptz` as `Date`), without the password hash. */
const UserFromDriver = Schema.Struct({
  ...User.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  emailVerifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
})

/** The `users` row without its password hash. */
export const UserRow = UserFromDriver.pipe(snakeCaseColumns())

/** The `users` row with its password hash. */
export const UserCredentialsRow = UserFromDriver.pipe(Schema.fieldsAssign({ passwordHash: Schema.String }), snakeCaseColumns())

/** The `memberships` row. */
export const MembershipRow = Schema.Struct({
  ...Membership.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

/** The user half of a member-list row, its columns prefixed `user_` (the membership's `user_id` is its id). */
export const MemberUserRow = UserFromDriver.pipe(snakeCaseColumns({ prefix: "user_" }))

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
}).pipe(snakeCaseColumns())

/** The `invitations` row (`invited_by` as parsed `jsonb`). */
export const InvitationRow = Schema.Struct({
  ...Invitation.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.DateTimeUtcFromDate,
  acceptedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  revokedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns())

/** The `appearance_bundles` row (`bundle` as parsed `jsonb`, checked against the domain's schema). */
export const AppearanceRow = Schema.Struct({
  ...AppearanceSettings.fields,
  updatedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns())
