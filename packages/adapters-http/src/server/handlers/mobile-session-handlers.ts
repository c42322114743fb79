import { Invitations, Organization, PushNotifications } from "@atrium/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../contract/api.ts"
import { CurrentSession } from "../../contract/security.ts"
import { clientAddress } from "../client-address.ts"
import { leanGroup } from "../lean-group.ts"
import { Throttles } from "../throttles.ts"
import { toOrganizationView } from "./identity-views.ts"

/** Handlers of the `/api/mobile` routes any live session may use: its organization, switching, joining. */
export const MobileSessionHandlers = Layer.unwrap(Effect.gen(function*() {
    const organization = yield* Organization
    const invitations = yield* Invitations
    const throttles = yield* Throttles
    const features = { push: (yield* PushNotifications).enabled }
    return leanGroup(HttpApiBuilder.group(Api, "mobileSession", (handlers) => handlers
      .handle("getOrganization", Effect.fn("Mobile.getOrganization")(function*() {
        return toOrganizationView(yield* organization.view(yield* CurrentSession), features)
      }))
      .handle("switchWorkspace", Effect.fn("Mobile.switchWorkspace")(function*({ payload }) {
        return toOrganizationView(yield* organization.switchActive(yield* CurrentSession, payload.workspaceId), features)
      }))
      .handle("acceptInvitation", Effect.fn("Mobile.acceptInvitation")(function*({ payload }) {
        const session = yield* CurrentSession
        yield* throttles.acceptInvitation(clientAddress(yield* HttpServerRequest.HttpServerRequest), session.id)
        const accepted = yield* invitations.accept(session.userId, Redacted.make(payload.token, { label: "invitation token" }))
        return { workspaceId: accepted.membership.workspaceId, membershipId: accepted.membership.id, role: accepted.membership.role }
      }))))
}))
