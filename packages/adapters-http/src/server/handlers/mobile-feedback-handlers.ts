import { CurrentPrincipal, deriveView, FeatureRequest, type FeatureRequestForViewer, FeatureRequests, type OwnPushDevice, PushDevice, PushNotifications } from "@atrium/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api, FeatureRequestView, PushDeviceView } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { withRetryAfter } from "../retry-after.ts"
import { pageRequestOf } from "./page-request.ts"

// The author is shown by name only; their user id and the workspace stay in the server.
const featureRequestView = deriveView(FeatureRequest, FeatureRequestView, { withheld: ["workspaceId", "authorId", "authorName"] })
const toFeatureRequestView = ({ request, viewerHasVoted }: FeatureRequestForViewer) =>
  featureRequestView(request, { viewerHasVoted, author: { name: request.authorName } })

// The token is shown back to its owner only (the session's own devices); the sealed copy and its digest never.
const pushDeviceView = deriveView(PushDevice, PushDeviceView, { withheld: ["id", "userId", "sessionId", "sealedToken", "tokenDigest"] })
const toPushDeviceView = ({ device, expoPushToken }: OwnPushDevice) => pushDeviceView(device, { expoPushToken: Redacted.value(expoPushToken) })

/** Handlers of the feature-request board. */
export const MobileFeedbackHandlers = Layer.unwrap(Effect.gen(function*() {
    const board = yield* FeatureRequests
    return leanGroup(HttpApiBuilder.group(Api, "mobileFeedback", (handlers) => handlers
      .handle("listFeatureRequests", Effect.fn("Mobile.listFeatureRequests")(function*({ query }) {
        const page = yield* board.list(yield* CurrentPrincipal, { status: query.status, sort: query.sort ?? "top" }, pageRequestOf(query))
        return { data: page.data.map(toFeatureRequestView), nextCursor: page.nextCursor }
      }))
      .handle("createFeatureRequest", Effect.fn("Mobile.createFeatureRequest")(function*({ payload, headers }) {
        const created = yield* board.create(yield* CurrentPrincipal, { title: payload.title, details: payload.details ?? "" }, Option.fromNullishOr(headers["idempotency-key"]))
          .pipe(withRetryAfter)
        return {
          featureRequest: toFeatureRequestView(created),
          possibleDuplicates: created.possibleDuplicates.map((match) => ({
            featureRequest: toFeatureRequestView({ request: match.request, viewerHasVoted: false }),
            similarity: Math.round(match.similarity * 100) / 100
          }))
        }
      }))
      .handle("getFeatureRequest", Effect.fn("Mobile.getFeatureRequest")(function*({ params }) {
        return toFeatureRequestView(yield* board.get(yield* CurrentPrincipal, params.id))
      }))
      .handle("voteFeatureRequest", Effect.fn("Mobile.voteFeatureRequest")(function*({ params }) {
        return toFeatureRequestView(yield* board.vote(yield* CurrentPrincipal, params.id))
      }))
      .handle("unvoteFeatureRequest", Effect.fn("Mobile.unvoteFeatureRequest")(function*({ params }) {
        return toFeatureRequestView(yield* board.unvote(yield* CurrentPrincipal, params.id))
      }))))
}))

/** Handlers of the member's push devices and notification preferences. */
export const MobilePushHandlers = Layer.unwrap(Effect.gen(function*() {
    const push = yield* PushNotifications
    const preferencesView = (preferences: Parameters<typeof push.setPreferences>[1]) => ({ pushEnabled: push.enabled, preferences })
    return leanGroup(HttpApiBuilder.group(Api, "mobilePush", (handlers) => handlers
      .handle("listPushDevices", Effect.fn("Mobile.listPushDevices")(function*() {
        return { data: (yield* push.devices(yield* CurrentPrincipal)).map(toPushDeviceView) }
      }))
      .handle("putPushDevice", Effect.fn("Mobile.putPushDevice")(function*({ params, payload }) {
        return toPushDeviceView(yield* push.register(yield* CurrentPrincipal, params.installationId, payload))
      }))
      .handle("deletePushDevice", Effect.fn("Mobile.deletePushDevice")(function*({ params }) {
        yield* push.unregister(yield* CurrentPrincipal, params.installationId)
      }))
      .handle("getNotificationPreferences", Effect.fn("Mobile.getNotificationPreferences")(function*() {
        return preferencesView(yield* push.preferences(yield* CurrentPrincipal))
      }))
      .handle("putNotificationPreferences", Effect.fn("Mobile.putNotificationPreferences")(function*({ payload }) {
        return preferencesView(yield* push.setPreferences(yield* CurrentPrincipal, payload))
      }))))
}))
