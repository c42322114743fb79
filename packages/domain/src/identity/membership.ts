import { Schema } from "effect"
import { deriveView, MembershipId, UserId, WorkspaceId } from "../shared/index.ts"
import { MemberSummary } from "./identity-events.ts"
import { Role } from "../access/index.ts"
import type { User } from "./user.ts"
import type { Workspace } from "../workspaces/index.ts"

/** One user's role in one workspace; a user has at most one membership per workspace. */
export class Membership extends Schema.Class<Membership>("@atrium/domain/Membership")({
  id: MembershipId,
  workspaceId: WorkspaceId,
  userId: UserId,
  role: Role,
  createdAt: Schema.DateTimeUtc
}) {}

/** A membership with its user, as member lists show it. */
export interface Member {
  readonly membership: Membership
  readonly user: User
}

/** One of the user's workspaces and their role in it. */
export interface WorkspaceMembership {
  readonly workspace: Workspace
  readonly membership: Membership
}

/** The `MemberSummary` of the event catalog (`member.joined`, `member.removed`, `member.role_changed`). */
export const toMemberSummary = deriveView(Membership, MemberSummary, { withheld: ["workspaceId", "createdAt"] })
