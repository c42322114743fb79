import { Context, Effect, Layer, Option } from "effect"
import { NotFound, type Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import type { WorkspaceMembership } from "./membership.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { SessionRepository } from "./session-repository.ts"
import type { Role } from "../access/index.ts"
import { Session } from "./session.ts"
import type { Workspace } from "../workspaces/index.ts"

/**
 * The session's organization (`GET /api/mobile/organization`): the active workspace and role — none when the
 * member was removed from it, so the client can still list and switch — and every workspace of the user.
 */
export interface OrganizationView {
  readonly workspace: Option.Option<Workspace>
  readonly role: Option.Option<Role>
  readonly memberships: ReadonlyArray<WorkspaceMembership>
}

/** The view for the session's active workspace, from every workspace of its user. */
export const organizationViewOf = (session: Session, memberships: ReadonlyArray<WorkspaceMembership>): OrganizationView => {
  const active = Option.fromNullishOr(memberships.find((m) => m.workspace.id === session.activeWorkspaceId))
  return {
    workspace: Option.map(active, (m) => m.workspace),
    role: Option.map(active, (m) => m.membership.role),
    memberships
  }
}

/** The workspaces a member belongs to, and which one their session acts in. */
export class Organization extends Context.Service<Organization, {
  readonly view: (session: Session) => Effect.Effect<OrganizationView, Unavailable>
  /** Only to a workspace the user belongs to; any other (existing or not) is `NotFound`. */
  readonly switchActive: (session: Session, workspaceId: WorkspaceId) => Effect.Effect<OrganizationView, NotFound | Unavailable>
}>()("@atrium/domain/Organization") {
  static readonly layer = Layer.effect(
    Organization,
    Effect.gen(function*() {
      const memberships = yield* MembershipRepository
      const sessions = yield* SessionRepository

      // One read (memberships joined to their workspaces), served for up to a second by `MembershipCache`.
      // Untraced: the app reads it on every start and screen; its repository call carries its own span.
      const view = (session: Session) => Effect.map(memberships.listWorkspacesOfUser(session.userId), (all) => organizationViewOf(session, all))

      const switchActive = Effect.fn("Organization.switchActive")(function*(session: Session, workspaceId: WorkspaceId) {
        if (Option.isNone(yield* memberships.find(workspaceId, session.userId))) return yield* new NotFound({ resource: "workspace" })
        yield* sessions.setActiveWorkspace(session.id, workspaceId)
        return yield* view(new Session({ ...session, activeWorkspaceId: workspaceId }))
      })

      return Organization.of({ view, switchActive })
    })
  )
}
