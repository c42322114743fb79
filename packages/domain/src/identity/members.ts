import { Context, Effect, Layer, Option } from "effect"
import { memberActor, permits, roleAllows, roleChangeAllowed } from "../access/index.ts"
import { IdentityEvents } from "./identity-events.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { Conflict, NotFound, type Unavailable } from "../shared/index.ts"
import { Forbidden } from "../access/index.ts"
import type { MembershipId } from "../shared/index.ts"
import { type Member, Membership, toMemberSummary } from "./membership.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { Transactor } from "../shared/index.ts"
import type { SessionPrincipal } from "../access/index.ts"
import type { Role } from "../access/index.ts"

const lastOwner = () => new Conflict({ detail: "A workspace keeps at least one owner; make someone else owner first" })
const ownersOnly = () => new Forbidden({ detail: "Only an owner can make, change or remove an owner" })

/** The members of the principal's workspace: list, change role, remove (or leave), under the role policy. */
export class Members extends Context.Service<Members, {
  readonly list: (principal: SessionPrincipal, page: PageRequest) => Effect.Effect<Page<Member>, Forbidden | Unavailable>
  /** Admins change non-owners between admin and member; only owners make, demote or touch owners; one owner always remains. */
  readonly changeRole: (principal: SessionPrincipal, id: MembershipId, role: Role) => Effect.Effect<Membership, Forbidden | NotFound | Conflict | Unavailable>
  /** Admins remove non-owners, owners remove anyone, anyone may remove themselves (leave); one owner always remains. */
  readonly remove: (principal: SessionPrincipal, id: MembershipId) => Effect.Effect<Membership, Forbidden | NotFound | Conflict | Unavailable>
}>()("@atrium/domain/Members") {
  static readonly layer = Layer.effect(
    Members,
    Effect.gen(function*() {
      const repo = yield* MembershipRepository
      const tx = yield* Transactor
      const changes = yield* ChangeLog

      const find = Effect.fnUntraced(function*(principal: SessionPrincipal, id: MembershipId) {
        const found = yield* repo.findById(principal.workspaceId, id)
        if (Option.isNone(found)) return yield* new NotFound({ resource: "member" })
        return found.value
      })

      // Read inside the transaction, after the target: Postgres holds the owner rows until commit.
      const ensureAnotherOwner = Effect.fnUntraced(function*(target: Membership) {
        if (target.role === "owner" && (yield* repo.countOwners(target.workspaceId)) <= 1) return yield* lastOwner()
      })

      const list = Effect.fn("Members.list")(function*(principal: SessionPrincipal, page: PageRequest) {
        yield* permits(principal, "members.manage")
        return yield* repo.listByWorkspace(principal.workspaceId, page)
      })

      const changeRole = Effect.fn("Members.changeRole")(function*(principal: SessionPrincipal, id: MembershipId, role: Role) {
        yield* permits(principal, "members.manage")
        return yield* tx.withTransaction(
          Effect.gen(function*() {
            const target = yield* find(principal, id)
            if (!roleChangeAllowed(principal.role, target.role, role)) return yield* ownersOnly()
            if (target.role === role) return target
            yield* ensureAnotherOwner(target)
            const changed = new Membership({ ...target, role })
            yield* repo.update(changed)
            yield* changes.record({
              workspaceId: changed.workspaceId,
              actor: memberActor(principal),
              action: "member.role_changed",
              target: changed.id,
              event: emit(IdentityEvents.memberRoleChanged, { member: toMemberSummary(changed), previousRole: target.role })
            })
            return changed
          })
        )
      })

      const remove = Effect.fn("Members.remove")(function*(principal: SessionPrincipal, id: MembershipId) {
        return yield* tx.withTransaction(
          Effect.gen(function*() {
            const target = yield* find(principal, id)
            const leaving = target.userId === principal.userId
            if (!leaving) {
              yield* permits(principal, "members.manage")
              if (target.role === "owner" && !roleAllows(principal.role, "owners.manage")) return yield* ownersOnly()
            }
            yield* ensureAnotherOwner(target)
            yield* repo.delete(target.workspaceId, target.id)
            yield* changes.record({
              workspaceId: target.workspaceId,
              actor: memberActor(principal),
              action: "member.removed",
              target: target.id,
              event: emit(IdentityEvents.memberRemoved, { member: toMemberSummary(target) })
            })
            return target
          })
        )
      })

      return Members.of({ list, changeRole, remove })
    })
  )
}
