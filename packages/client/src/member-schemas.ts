import { MembershipId, Role, UserId } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"

/** A member of the active workspace. */
export const MemberView = Schema.Struct({
  id: MembershipId,
  userId: UserId,
  email: Schema.String,
  name: Schema.String,
  role: Role,
  joinedAt: Schema.String.annotate({ format: "date-time", description: "When they joined, ISO-8601 UTC" })
}).annotate({ identifier: "Member" })
export type MemberView = typeof MemberView.Type

/** A membership as a role change answers it. */
export const MembershipView = Schema.Struct({
  id: MembershipId,
  userId: UserId,
  role: Role,
  joinedAt: Schema.String.annotate({ format: "date-time", description: "When they joined, ISO-8601 UTC" })
}).annotate({ identifier: "Membership" })
export type MembershipView = typeof MembershipView.Type

/** One page of members, oldest first. */
export const MemberList = Schema.Struct({ data: Schema.Array(MemberView), nextCursor: NextCursor }).annotate({ identifier: "MemberList" })

/** `PATCH /api/mobile/members/{id}`. */
export const ChangeMemberRole = Schema.Struct({
  role: Role.annotate({ description: "Admins move non-owners between admin and member; only owners grant or take `owner`" })
}).annotate({ identifier: "ChangeMemberRole" })
