import { AuditTrail, CurrentMember, Invitations, Members } from "@atrium/domain"
import { DateTime, Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { forbiddenProblem } from "../middleware/session-refusals.ts"
import { conflictProblem, invalidInputProblem, notFoundProblem, unavailableProblem } from "./domain-problems.ts"
import { toAuditEntryView, toInvitationView, toMembershipView, toMemberView } from "./identity-views.ts"
import { pageRequestOf } from "./page-request.ts"

/** Handlers of `/api/mobile` members, invitations and audit log; the domain services apply the role policy. */
export const MobileTeamHandlers = HttpApiBuilder.group(
  Api,
  "mobileTeam",
  Effect.fn("MobileTeamHandlers.make")(function*(handlers) {
    const members = yield* Members
    const invitations = yield* Invitations
    const audit = yield* AuditTrail
    return handlers
      .handle("listMembers", Effect.fn("Mobile.listMembers")(function*({ query }) {
        const page = yield* members.list(yield* CurrentMember, pageRequestOf(query)).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, Unavailable: unavailableProblem })
        )
        return { data: page.data.map(toMemberView), nextCursor: page.nextCursor }
      }))
      .handle("changeMemberRole", Effect.fn("Mobile.changeMemberRole")(function*({ params, payload }) {
        const changed = yield* members.changeRole(yield* CurrentMember, params.id, payload.role).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, NotFound: notFoundProblem, Conflict: conflictProblem, Unavailable: unavailableProblem })
        )
        return toMembershipView(changed)
      }))
      .handle("removeMember", Effect.fn("Mobile.removeMember")(function*({ params }) {
        yield* members.remove(yield* CurrentMember, params.id).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, NotFound: notFoundProblem, Conflict: conflictProblem, Unavailable: unavailableProblem })
        )
      }))
      .handle("listInvitations", Effect.fn("Mobile.listInvitations")(function*({ query }) {
        const page = yield* invitations.list(yield* CurrentMember, pageRequestOf(query)).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, Unavailable: unavailableProblem })
        )
        const now = yield* DateTime.now
        return { data: page.data.map((invitation) => toInvitationView(invitation, now)), nextCursor: page.nextCursor }
      }))
      .handle("createInvitation", Effect.fn("Mobile.createInvitation")(function*({ payload }) {
        const created = yield* invitations.create(yield* CurrentMember, payload).pipe(
          Effect.catchTags({
            Forbidden: forbiddenProblem,
            InvalidInput: invalidInputProblem,
            Conflict: conflictProblem,
            Unavailable: unavailableProblem
          })
        )
        return { invitation: toInvitationView(created.invitation, yield* DateTime.now), token: Redacted.value(created.token) }
      }))
      .handle("revokeInvitation", Effect.fn("Mobile.revokeInvitation")(function*({ params }) {
        yield* invitations.revoke(yield* CurrentMember, params.id).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, NotFound: notFoundProblem, Conflict: conflictProblem, Unavailable: unavailableProblem })
        )
      }))
      .handle("listAudit", Effect.fn("Mobile.listAudit")(function*({ query }) {
        const page = yield* audit.list(yield* CurrentMember, pageRequestOf(query)).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, Unavailable: unavailableProblem })
        )
        return { data: page.data.map(toAuditEntryView), nextCursor: page.nextCursor }
      }))
  })
)
