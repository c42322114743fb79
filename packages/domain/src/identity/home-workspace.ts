import { Effect } from "effect"
import { Unavailable, type WorkspaceId } from "../shared/index.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { createPersonalWorkspace } from "./personal-workspace.ts"
import type { User } from "./user.ts"

/**
 * The workspace an account's own changes belong to: where a new session starts and where changes to the account
 * itself (verification and reset links, their use) are audited, since the audit log is per workspace. It is the
 * account's oldest workspace (normally the personal one made at sign-up); an account that left every workspace gets a
 * new personal one. Call it inside the caller's transaction.
 */
export const homeWorkspaceOf = Effect.fn("homeWorkspaceOf")(function*(user: User) {
  const memberships = yield* (yield* MembershipRepository).listByUser(user.id)
  const oldest = memberships[0]
  if (oldest !== undefined) return oldest.workspaceId
  const created: WorkspaceId = (yield* createPersonalWorkspace(user)).workspace.id
  return created
})

/**
 * The home workspace, for flows whose callers know no `Conflict` (mailed links): a personal workspace made at the same
 * moment by a racing sign-in fails the transaction, which commits nothing, and the caller retries.
 */
export const accountAuditWorkspaceOf = (user: User) =>
  homeWorkspaceOf(user).pipe(Effect.catchTag("Conflict", () => Effect.fail(new Unavailable({ dependency: "database" }))))
