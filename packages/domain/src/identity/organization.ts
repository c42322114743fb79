import { Cache, Context, Effect, Layer, Option } from "effect"
import { NotFound, type Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import type { Membership } from "./membership.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { SessionRepository } from "./session-repository.ts"
import { cachedWorkspaceLookup, WorkspaceRepository } from "../workspaces/index.ts"
import type { Role } from "../access/index.ts"
import { Session } from "./session.ts"
import type { Workspace } from "../workspaces/index.ts"

/** One of the user's workspaces and their role in it. */
export interface WorkspaceMembership {
  readonly workspace: Workspace
  readonly membership: Membership
}

/**
 * The session's organization (`GET /api/mobile/organization`): the active workspace and role — none when the
 * member was removed from it, so the client can still list and switch — and every workspace of the user.
 */
export interface OrganizationView {
  readonly workspace: Option.Option<Workspace>
  readonly role: Option.Option<Role>
  readonly memberships: ReadonlyArray<WorkspaceMembership>
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
      // Read on every organization request: the same one-second cache the workspace of every request goes through.
      const workspaces = yield* cachedWorkspaceLookup(yield* WorkspaceRepository)
      const sessions = yield* SessionRepository

      const viewOf = Effect.fnUntraced(function*(session: Session) {
        const all = yield* memberships.listByUser(session.userId)
        const joined = yield* Effect.forEach(all, (membership) =>
          Cache.get(workspaces, membership.workspaceId).pipe(
            Effect.map(Option.map((workspace): WorkspaceMembership => ({ workspace, membership })))
          ))
        const list = joined.flatMap(Option.toArray)
        const active = Option.fromNullishOr(list.find((m) => m.workspace.id === session.activeWorkspaceId))
        const view: OrganizationView = {
          workspace: Option.map(active, (m) => m.workspace),
          role: Option.map(active, (m) => m.membership.role),
          memberships: list
        }
        return view
      })

      // Untraced: the app reads it on every start and screen; its repository calls carry their own spans.
      const view = viewOf

      const switchActive = Effect.fn("Organization.switchActive")(function*(session: Session, workspaceId: WorkspaceId) {
        if (Option.isNone(yield* memberships.find(workspaceId, session.userId))) return yield* new NotFound({ resource: "workspace" })
        yield* sessions.setActiveWorkspace(session.id, workspaceId)
        const switched = new Session({ ...session, activeWorkspaceId: workspaceId })
        return yield* viewOf(switched)
      })

      return Organization.of({ view, switchActive })
    })
  )
}
