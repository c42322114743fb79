import { Context, type Effect, type Option } from "effect"
import type { Conflict, Unavailable } from "../shared/index.ts"
import type { MembershipId, UserId, WorkspaceId } from "../shared/index.ts"
import type { Member, Membership, WorkspaceMembership } from "./membership.ts"
import type { Page, PageRequest } from "../shared/index.ts"

/** Port: who belongs to which workspace, with which role. */
export class MembershipRepository extends Context.Service<MembershipRepository, {
  /** Fails with `Conflict` when the user already has a membership in the workspace (unique `(workspace_id, user_id)`). */
  readonly insert: (membership: Membership) => Effect.Effect<void, Conflict | Unavailable>
  readonly find: (workspaceId: WorkspaceId, userId: UserId) => Effect.Effect<Option.Option<Membership>, Unavailable>
  /** Only within `workspaceId`: another workspace's membership is `None`. */
  readonly findById: (workspaceId: WorkspaceId, id: MembershipId) => Effect.Effect<Option.Option<Membership>, Unavailable>
  /** The workspace's members with their users, oldest first. */
  readonly listByWorkspace: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<Member>, Unavailable>
  /** Every membership of a user, oldest first. */
  readonly listByUser: (userId: UserId) => Effect.Effect<ReadonlyArray<Membership>, Unavailable>
  /** Every membership of a user with its workspace, oldest first, in one read: what the organization view shows. */
  readonly listWorkspacesOfUser: (userId: UserId) => Effect.Effect<ReadonlyArray<WorkspaceMembership>, Unavailable>
  /** Replaces the stored membership (same id and workspace). */
  readonly update: (membership: Membership) => Effect.Effect<void, Unavailable>
  readonly delete: (workspaceId: WorkspaceId, id: MembershipId) => Effect.Effect<void, Unavailable>
  /**
   * Owners of the workspace. Called inside the transaction that demotes or removes an owner: Postgres locks the
   * owner rows (`SELECT … FOR UPDATE`) so two owners demoting each other at once cannot leave none.
   */
  readonly countOwners: (workspaceId: WorkspaceId) => Effect.Effect<number, Unavailable>
}>()("@atrium/domain/MembershipRepository") {}
