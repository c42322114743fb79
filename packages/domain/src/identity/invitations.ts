import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { memberActor, permits, roleAllows } from "../access/index.ts"
import { IdentityEvents } from "./identity-events.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { Conflict, InvalidInput, NotFound, type Unavailable } from "../shared/index.ts"
import { Forbidden } from "../access/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { InvitationId, MembershipId, type UserId } from "../shared/index.ts"
import { Invitation, type InvitationDelivery, invitationMailKey, invitationTtl, toInvitationSummary } from "./invitation.ts"
import { Membership, toMemberSummary } from "./membership.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import { InvitationRepository } from "./invitation-repository.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { Transactor } from "../shared/index.ts"
import { UserRepository } from "./user-repository.ts"
import { type Acting, actorOf, memberOf, type SystemPrincipal } from "../access/index.ts"
import type { Actor, WorkspaceId } from "../shared/index.ts"
import type { Role } from "../access/index.ts"
import { SecretHasher } from "../shared/index.ts"
import { SecureRandom } from "../shared/index.ts"
import { hasTokenShape, mintToken } from "./session-token.ts"
import { normalizeEmail, sameEmail } from "./email.ts"
import { MailOutbox } from "../mail/index.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"

/** What inviting someone needs. */
export interface CreateInvitationInput {
  readonly email: string
  readonly role: Role
}

/** A new invitation and its token, which is returned this once and never stored. */
export interface CreatedInvitation {
  readonly invitation: Invitation
  readonly token: Redacted.Redacted<string>
}

/** An invitation as its workspace's admins list it: with where its mail stands (none when it was never mailed). */
export interface ListedInvitation {
  readonly invitation: Invitation
  readonly delivery: Option.Option<InvitationDelivery>
}

/** An accepted invitation and the membership it created. */
export interface AcceptedInvitation {
  readonly invitation: Invitation
  readonly membership: Membership
}

/** Invitations to the principal's workspace, and their acceptance by signed-in users. */
export class Invitations extends Context.Service<Invitations, {
  /** Admins invite members and admins; only owners invite owners. The token expires in 7 days and is mailed to the invitee. */
  readonly create: (principal: Acting, input: CreateInvitationInput) => Effect.Effect<CreatedInvitation, Forbidden | InvalidInput | Conflict | Unavailable>
  /** The operator (CLI) invites into the principal's workspace, any role; the same mail, in the same transaction. */
  readonly createAsOperator: (
    principal: SystemPrincipal,
    input: CreateInvitationInput
  ) => Effect.Effect<CreatedInvitation, Forbidden | InvalidInput | Conflict | NotFound | Unavailable>
  readonly list: (principal: Acting, page: PageRequest) => Effect.Effect<Page<ListedInvitation>, Forbidden | Unavailable>
  /** Revoking twice is harmless; an accepted invitation cannot be revoked (remove the member instead). */
  readonly revoke: (principal: Acting, id: InvitationId) => Effect.Effect<Invitation, Forbidden | NotFound | Conflict | Unavailable>
  /**
   * Joins the user to the invitation's workspace. Unknown or revoked tokens are `NotFound`; a user whose email is
   * not the invitation's is `Forbidden`; accepted, expired, or already a member is `Conflict`.
   */
  readonly accept: (userId: UserId, token: Redacted.Redacted<string>) => Effect.Effect<AcceptedInvitation, NotFound | Forbidden | Conflict | Unavailable>
}>()("@atrium/domain/Invitations") {
  static readonly layer = Layer.effect(
    Invitations,
    Effect.gen(function*() {
      const repo = yield* InvitationRepository
      const memberships = yield* MembershipRepository
      const users = yield* UserRepository
      const hasher = yield* SecretHasher
      const random = yield* SecureRandom
      const ids = yield* IdGenerator
      const tx = yield* Transactor
      const changes = yield* ChangeLog
      const outbox = yield* MailOutbox
      const workspaces = yield* WorkspaceRepository

      // One invitation with its mail and its change, in one transaction, whoever invites.
      const issue = Effect.fnUntraced(function*(workspaceId: WorkspaceId, input: CreateInvitationInput, invitedBy: Actor, inviterId: UserId | undefined) {
        const email = normalizeEmail(input.email)
        if (Option.isNone(email)) return yield* new InvalidInput({ detail: "email is not a valid address" })
        const existing = yield* users.findByEmail(email.value)
        if (Option.isSome(existing) && Option.isSome(yield* memberships.find(workspaceId, existing.value.user.id))) {
          return yield* new Conflict({ detail: "That person is already a member of this workspace" })
        }
        const workspace = yield* workspaces.findById(workspaceId)
        const inviter = inviterId === undefined ? Option.none() : yield* users.findById(inviterId)
        const token = yield* mintToken("invitation").pipe(Effect.provideService(SecureRandom, random))
        const now = yield* DateTime.now
        const invitation = new Invitation({
          id: InvitationId.make(yield* ids.make("inv")),
          workspaceId: workspaceId,
          email: email.value,
          role: input.role,
          tokenDigest: yield* hasher.digest(token),
          invitedBy,
          createdAt: now,
          expiresAt: DateTime.addDuration(now, invitationTtl),
          acceptedAt: Option.none(),
          acceptedBy: Option.none(),
          revokedAt: Option.none()
        })
        yield* tx.withTransaction(
          Effect.gen(function*() {
            yield* repo.insert(invitation)
            // The invitee gets the link by mail in the same transaction; the id names the change (one message).
            yield* outbox.enqueue({
              dedupeKey: invitationMailKey(invitation.id),
              to: invitation.email,
              content: {
                template: "invitation",
                workspaceName: Option.match(workspace, { onNone: () => "", onSome: (w) => w.name }),
                inviterName: Option.match(inviter, { onNone: () => "", onSome: (u) => u.name }),
                role: invitation.role
              },
              token,
              linkExpiresAt: invitation.expiresAt
            })
            yield* changes.record({
              workspaceId: invitation.workspaceId,
              actor: invitedBy,
              action: "invitation.created",
              target: invitation.id,
              event: emit(IdentityEvents.invitationCreated, { invitation: toInvitationSummary(invitation) })
            })
          })
        )
        const created: CreatedInvitation = { invitation, token }
        return created
      })

      const create = Effect.fn("Invitations.create")(function*(acting: Acting, input: CreateInvitationInput) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "invitations.manage")
        if (input.role === "owner" && !roleAllows(principal.role, "owners.manage")) {
          return yield* new Forbidden({ detail: "Only an owner can invite an owner" })
        }
        return yield* issue(principal.workspaceId, input, memberActor(principal), principal.userId)
      })

      const createAsOperator = Effect.fn("Invitations.createAsOperator")(function*(principal: SystemPrincipal, input: CreateInvitationInput) {
        yield* permits(principal, "invitations.manage")
        if (input.role === "owner") yield* permits(principal, "owners.manage")
        if (Option.isNone(yield* workspaces.findById(principal.workspaceId))) return yield* new NotFound({ resource: "workspace" })
        return yield* issue(principal.workspaceId, input, actorOf(principal), undefined)
      })

      const list = Effect.fn("Invitations.list")(function*(acting: Acting, page: PageRequest) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "invitations.manage")
        const listed = yield* repo.listByWorkspace(principal.workspaceId, page)
        const statuses = yield* outbox.statusesOf(listed.data.map((invitation) => invitationMailKey(invitation.id)))
        const data = listed.data.map((invitation): ListedInvitation => ({
          invitation,
          delivery: Option.map(Option.fromNullishOr(statuses.get(invitationMailKey(invitation.id))), (status) => status === "pending" ? "sending" : status)
        }))
        return { ...listed, data }
      })

      const revoke = Effect.fn("Invitations.revoke")(function*(acting: Acting, id: InvitationId) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "invitations.manage")
        return yield* tx.withTransaction(
          Effect.gen(function*() {
            const found = yield* repo.findById(principal.workspaceId, id)
            if (Option.isNone(found)) return yield* new NotFound({ resource: "invitation" })
            const invitation = found.value
            if (Option.isSome(invitation.acceptedAt)) return yield* new Conflict({ detail: "The invitation was already accepted" })
            if (Option.isSome(invitation.revokedAt)) return invitation
            const revoked = new Invitation({ ...invitation, revokedAt: Option.some(yield* DateTime.now) })
            yield* repo.update(revoked)
            yield* changes.record({ workspaceId: revoked.workspaceId, actor: memberActor(principal), action: "invitation.revoked", target: revoked.id })
            return revoked
          })
        )
      })

      const accept = Effect.fn("Invitations.accept")(function*(userId: UserId, token: Redacted.Redacted<string>) {
        if (!hasTokenShape("invitation", token)) return yield* new NotFound({ resource: "invitation" })
        const digest = yield* hasher.digest(token)
        return yield* tx.withTransaction(
          Effect.gen(function*() {
            const found = yield* repo.findByTokenDigest(digest)
            if (Option.isNone(found) || Option.isSome(found.value.revokedAt)) return yield* new NotFound({ resource: "invitation" })
            const invitation = found.value
            const user = yield* users.findById(userId)
            // Checked before any other state, so a leaked token tells a stranger nothing about the invitation.
            if (Option.isNone(user) || !sameEmail(user.value.email, invitation.email)) {
              return yield* new Forbidden({ detail: "This invitation is for another email address" })
            }
            const now = yield* DateTime.now
            const status = invitation.statusAt(now)
            if (status === "accepted") return yield* new Conflict({ detail: "The invitation was already accepted" })
            if (status === "expired") return yield* new Conflict({ detail: "The invitation has expired; ask for a new one" })
            if (Option.isSome(yield* memberships.find(invitation.workspaceId, userId))) {
              return yield* new Conflict({ detail: "You are already a member of this workspace" })
            }
            const membership = new Membership({
              id: MembershipId.make(yield* ids.make("mem")),
              workspaceId: invitation.workspaceId,
              userId,
              role: invitation.role,
              createdAt: now
            })
            const accepted = new Invitation({ ...invitation, acceptedAt: Option.some(now), acceptedBy: Option.some(userId) })
            yield* memberships.insert(membership)
            yield* repo.update(accepted)
            const actor = memberActor({ userId })
            yield* changes.record({
              workspaceId: accepted.workspaceId,
              actor,
              action: "invitation.accepted",
              target: accepted.id,
              event: emit(IdentityEvents.invitationAccepted, { invitation: toInvitationSummary(accepted), member: toMemberSummary(membership) })
            })
            yield* changes.record({
              workspaceId: membership.workspaceId,
              actor,
              action: "member.joined",
              target: membership.id,
              event: emit(IdentityEvents.memberJoined, { member: toMemberSummary(membership) })
            })
            const result: AcceptedInvitation = { invitation: accepted, membership }
            return result
          })
        )
      })

      return Invitations.of({ create, createAsOperator, list, revoke, accept })
    })
  )
}
