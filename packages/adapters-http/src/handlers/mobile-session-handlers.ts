import { Invitations, Organization } from "@atrium/domain"
import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { CurrentSession } from "../api/session-authentication.ts"
import { forbiddenProblem } from "../middleware/session-refusals.ts"
import { conflictProblem, notFoundProblem, unavailableProblem } from "./domain-problems.ts"
import { toOrganizationView } from "./identity-views.ts"

/** Handlers of the `/api/mobile` routes any live session may use: its organization, switching, joining. */
export const MobileSessionHandlers = HttpApiBuilder.group(
  Api,
  "mobileSession",
  Effect.fn("MobileSessionHandlers.make")(function*(handlers) {
    const organization = yield* Organization
    const invitations = yield* Invitations
    return handlers
      .handle("getOrganization", Effect.fn("Mobile.getOrganization")(function*() {
        const view = yield* organization.view(yield* CurrentSession).pipe(Effect.catchTag("Unavailable", unavailableProblem))
        return toOrganizationView(view)
      }))
      .handle("switchWorkspace", Effect.fn("Mobile.switchWorkspace")(function*({ payload }) {
        const view = yield* organization.switchActive(yield* CurrentSession, payload.workspaceId).pipe(
          Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
        return toOrganizationView(view)
      }))
      .handle("acceptInvitation", Effect.fn("Mobile.acceptInvitation")(function*({ payload }) {
        const session = yield* CurrentSession
        const accepted = yield* invitations.accept(session.userId, Redacted.make(payload.token, { label: "invitation token" })).pipe(
          Effect.catchTags({
            NotFound: notFoundProblem,
            Forbidden: forbiddenProblem,
            Conflict: conflictProblem,
            Unavailable: unavailableProblem
          })
        )
        return { workspaceId: accepted.membership.workspaceId, membershipId: accepted.membership.id, role: accepted.membership.role }
      }))
  })
)
