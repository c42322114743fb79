import { DateTime, Effect } from "effect"
import { memberActor } from "../access/index.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { IdentityEvents } from "./identity-events.ts"
import { freeSlugFor } from "../workspaces/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { MembershipId, WorkspaceId } from "../shared/index.ts"
import { Membership, toMemberSummary } from "./membership.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"
import type { User } from "./user.ts"
import { Workspace } from "../workspaces/index.ts"

/**
 * Creates a user's personal workspace and their owner membership, with audit entries and `member.joined`. Call it
 * inside the caller's transaction.
 */
export const createPersonalWorkspace = Effect.fn("createPersonalWorkspace")(function*(user: User) {
  const ids = yield* IdGenerator
  const workspaces = yield* WorkspaceRepository
  const now = yield* DateTime.now
  const slug = yield* freeSlugFor(user.name)
  const workspace = new Workspace({ id: WorkspaceId.make(yield* ids.make("ws")), name: user.name, slug, personal: true, createdAt: now })
  const membership = new Membership({
    id: MembershipId.make(yield* ids.make("mem")),
    workspaceId: workspace.id,
    userId: user.id,
    role: "owner",
    createdAt: now
  })
  const actor = memberActor({ userId: user.id })
  yield* workspaces.insert(workspace)
  yield* (yield* MembershipRepository).insert(membership)
  const changes = yield* ChangeLog
  yield* changes.record({ workspaceId: workspace.id, actor, action: "workspace.created", target: workspace.id })
  yield* changes.record({
    workspaceId: workspace.id,
    actor,
    action: "member.joined",
    target: membership.id,
    event: emit(IdentityEvents.memberJoined, { member: toMemberSummary(membership) })
  })
  return { workspace, membership }
})
