import { AuditTrail, CurrentPrincipal, Invitations, Members } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { toAuditEntryView, toInvitationView, toMembershipView, toMemberView } from "./identity-views.ts"
import { pageRequestOf } from "./page-request.ts"

/** Handlers of `/api/mobile` members, invitations and audit log; the domain services apply the access policy. */
export const MobileTeamHandlers = Layer.unwrap(Effect.gen(function*() {
    const members = yield* Members
    const invitations = yield* Invitations
    const audit = yield* AuditTrail
    return leanGroup(HttpApiBuilder.group(Api, "mobileTeam", (handlers) => handlers
      .handle("listMembers", Effect.fn("Mobile.listMembers")(function*({ query }) {
        const page = yield* members.list(yield* CurrentPrincipal, pageRequestOf(query))
        return { data: page.data.map(toMemberView), nextCursor: page.nextCursor }
      }))
      .handle("changeMemberRole", Effect.fn("Mobile.changeMemberRole")(function*({ params, payload }) {
        return toMembershipView(yield* members.changeRole(yield* CurrentPrincipal, params.id, payload.role))
      }))
      .handle("removeMember", Effect.fn("Mobile.removeMember")(function*({ params }) {
        yield* members.remove(yield* CurrentPrincipal, params.id)
      }))
      .handle("listInvitations", Effect.fn("Mobile.listInvitations")(function*({ query }) {
        const page = yield* invitations.list(yield* CurrentPrincipal, pageRequestOf(query))
        const now = yield* DateTime.now
        return { data: page.data.map(({ delivery, invitation }) => toInvitationView(invitation, now, delivery)), nextCursor: page.nextCursor }
      }))
      .handle("createInvitation", Effect.fn("Mobile.createInvitation")(function*({ payload }) {
        const created = yield* invitations.create(yield* CurrentPrincipal, payload)
        // Just queued in the invitation's transaction: its mail is on its way.
        return { invitation: toInvitationView(created.invitation, yield* DateTime.now, Option.some("sending")), token: Redacted.value(created.token) }
      }))
      .handle("revokeInvitation", Effect.fn("Mobile.revokeInvitation")(function*({ params }) {
        yield* invitations.revoke(yield* CurrentPrincipal, params.id)
      }))
      .handle("listAudit", Effect.fn("Mobile.listAudit")(function*({ query }) {
        const page = yield* audit.list(yield* CurrentPrincipal, pageRequestOf(query))
        return { data: page.data.map(toAuditEntryView), nextCursor: page.nextCursor }
      }))))
}))
