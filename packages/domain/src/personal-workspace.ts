import { DateTime, Effect } from "effect"
import { memberActor } from "./authorization.ts"
import { recordChange } from "./change-recorder.ts"
import { freeSlugFor } from "./free-slug.ts"
import { IdGenerator } from "./id-generator.ts"
import { MembershipId, WorkspaceId } from "./ids.ts"
import { Membership, toMemberSummary } from "./membership.ts"
import { MembershipRepository } from "./ports/membership-repository.ts"
import { WorkspaceRepository } from "./ports/workspace-repository.ts"
import type { User } from "./user.ts"
import { Workspace } from "./workspace.ts"

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
  yield* recordChange({ workspaceId: workspace.id, actor, action: "workspace.created", target: workspace.id })
  yield* recordChange({
    workspaceId: workspace.id,
    actor,
    action: "member.joined",
    target: membership.id,
    event: { type: "member.joined", data: { member: toMemberSummary(membership) } }
  })
  return { workspace, membership }
})
