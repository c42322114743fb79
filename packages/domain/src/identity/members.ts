import { Context, DateTime, Effect, Layer, Option } from "effect"
import { memberActor, permits, roleAllows, roleChangeAllowed } from "../access/index.ts"
import { IdentityEvents } from "./identity-events.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { Conflict, IdGenerator, InvalidInput, MembershipId, NotFound, type Unavailable } from "../shared/index.ts"
import { Forbidden } from "../access/index.ts"
import { type Member, Membership, toMemberSummary } from "./membership.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { Transactor } from "../shared/index.ts"
import { type Acting, actorOf, memberOf, type SessionPrincipal, type SystemPrincipal } from "../access/index.ts"
import type { Role } from "../access/index.ts"
import { normalizeEmail } from "./email.ts"
import { UserRepository } from "./user-repository.ts"

const lastOwner = () => new Conflict({ detail: "A workspace keeps at least one owner; make someone else owner first" })
const ownersOnly = () => new Forbidden({ detail: "Only an owner can make, change or remove an owner" })

/** The members of the principal's workspace: list, change role, remove (or leave), under the role policy. */
export class Members extends Context.Service<Members, {
  readonly list: (principal: Acting, page: PageRequest) => Effect.Effect<Page<Member>, Forbidden | Unavailable>
  /** Admins change non-owners between admin and member; only owners make, demote or touch owners; one owner always remains. */
  readonly changeRole: (principal: Acting, id: MembershipId, role: Role) => Effect.Effect<Membership, Forbidden | NotFound | Conflict | Unavailable>
  /** Admins remove non-owners, owners remove anyone, anyone may remove themselves (leave); one owner always remains. */
  readonly remove: (principal: Acting, id: MembershipId) => Effect.Effect<Membership, Forbidden | NotFound | Conflict | Unavailable>
  /** The operator (CLI) adds the account with this email to the principal's workspace, in any role; the account must exist. */
  readonly addAsOperator: (
    principal: SystemPrincipal,
    input: { readonly email: string; readonly role: Role }
  ) => Effect.Effect<Membership, Forbidden | InvalidInput | NotFound | Conflict | Unavailable>
}>()("@atrium/domain/Members") {
  static readonly layer = Layer.effect(
    Members,
    Effect.gen(function*() {
      const repo = yield* MembershipRepository
      const tx = yield* Transactor
      const changes = yield* ChangeLog
      const users = yield* UserRepository
      const ids = yield* IdGenerator

      const find = Effect.fnUntraced(function*(principal: SessionPrincipal, id: MembershipId) {
        const found = yield* repo.findById(principal.workspaceId, id)
        if (Option.isNone(found)) return yield* new NotFound({ resource: "member" })
        return found.value
      })

      // Read inside the transaction, after the target: Postgres holds the owner rows until commit.
      const ensureAnotherOwner = Effect.fnUntraced(function*(target: Membership) {
        if (target.role === "owner" && (yield* repo.countOwners(target.workspaceId)) <= 1) return yield* lastOwner()
      })

      const list = Effect.fn("Members.list")(function*(acting: Acting, page: PageRequest) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "members.manage")
        return yield* repo.listByWorkspace(principal.workspaceId, page)
      })

      const changeRole = Effect.fn("Members.changeRole")(function*(acting: Acting, id: MembershipId, role: Role) {
        const principal = yield* memberOf(acting)
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

      const remove = Effect.fn("Members.remove")(function*(acting: Acting, id: MembershipId) {
        const principal = yield* memberOf(acting)
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

      const addAsOperator = Effect.fn("Members.addAsOperator")(function*(
        principal: SystemPrincipal,
        input: { readonly email: string; readonly role: Role }
      ) {
        yield* permits(principal, "members.manage")
        if (input.role === "owner") yield* permits(principal, "owners.manage")
        const { workspaceId } = principal
        const email = normalizeEmail(input.email)
        if (Option.isNone(email)) return yield* new InvalidInput({ detail: "email is not a valid address" })
        const user = yield* users.findByEmail(email.value)
        if (Option.isNone(user)) {
          return yield* new InvalidInput({ detail: "no account has that email; invite the person instead (they sign up from the mailed link)" })
        }
        return yield* tx.withTransaction(
          Effect.gen(function*() {
            if (Option.isSome(yield* repo.find(workspaceId, user.value.user.id))) {
              return yield* new Conflict({ detail: "That person is already a member of this workspace" })
            }
            const membership = new Membership({
              id: MembershipId.make(yield* ids.make("mem")),
              workspaceId,
              userId: user.value.user.id,
              role: input.role,
              createdAt: yield* DateTime.now
            })
            yield* repo.insert(membership)
            yield* changes.record({
              workspaceId: membership.workspaceId,
              actor: actorOf(principal),
              action: "member.joined",
              target: membership.id,
              event: emit(IdentityEvents.memberJoined, { member: toMemberSummary(membership) })
            })
            return membership
          })
        )
      })

      return Members.of({ list, changeRole, remove, addAsOperator })
    })
  )
}
