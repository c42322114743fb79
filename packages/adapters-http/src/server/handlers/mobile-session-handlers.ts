import { Invitations, Organization, type OrganizationView, PushNotifications, type Session, type WorkspaceId, type WorkspaceMembership } from "@atrium/domain"
import { Effect, Layer, Redacted, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { OrganizationView as OrganizationWire } from "@atrium/client"
import { CurrentSession } from "@atrium/client"
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
    const encode = Schema.encodeSync(OrganizationWire)
    // The app's most frequent read: its JSON is built once per cached membership list (a new array after each refresh
    // or change) and active workspace, then served as is; the schema encodes it that once, so the body is the same.
    const responses = new WeakMap<ReadonlyArray<WorkspaceMembership>, Map<WorkspaceId, HttpServerResponse.HttpServerResponse>>()
    const organizationResponse = (session: Session, view: OrganizationView) => {
      let byActive = responses.get(view.memberships)
      if (byActive === undefined) responses.set(view.memberships, byActive = new Map())
      let response = byActive.get(session.activeWorkspaceId)
      if (response === undefined) {
        response = HttpServerResponse.text(JSON.stringify(encode(toOrganizationView(view, features))), { contentType: "application/json" })
        byActive.set(session.activeWorkspaceId, response)
      }
      return response
    }
    return leanGroup(HttpApiBuilder.group(Api, "mobileSession", (handlers) => handlers
      // The hot path in two steps, like v1's workspace read: no span, no generator.
      .handle("getOrganization", () =>
        Effect.flatMap(Effect.service(CurrentSession), (session) =>
          Effect.map(organization.view(session), (view) => organizationResponse(session, view))))
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
