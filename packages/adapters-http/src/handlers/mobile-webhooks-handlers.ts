import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { currentMemberCaller } from "./caller.ts"
import { makeWebhookActions } from "./webhook-actions.ts"

/** Handlers of the `/api/mobile` webhook operations: the shared actions, acting in the member session's active workspace. */
export const MobileWebhooksHandlers = HttpApiBuilder.group(
  Api,
  "mobileWebhooks",
  Effect.fn("MobileWebhooksHandlers.make")(function*(handlers) {
    const actions = yield* makeWebhookActions
    return handlers
      .handle("listWebhookEndpoints", Effect.fn("Mobile.listWebhookEndpoints")(function*({ query }) {
        return yield* actions.list(yield* currentMemberCaller, query)
      }))
      .handle("createWebhookEndpoint", Effect.fn("Mobile.createWebhookEndpoint")(function*({ payload }) {
        return yield* actions.create(yield* currentMemberCaller, payload)
      }))
      .handle("getWebhookEndpoint", Effect.fn("Mobile.getWebhookEndpoint")(function*({ params }) {
        return yield* actions.get(yield* currentMemberCaller, params.id)
      }))
      .handle("updateWebhookEndpoint", Effect.fn("Mobile.updateWebhookEndpoint")(function*({ params, payload }) {
        return yield* actions.update(yield* currentMemberCaller, params.id, payload)
      }))
      .handle("deleteWebhookEndpoint", Effect.fn("Mobile.deleteWebhookEndpoint")(function*({ params }) {
        return yield* actions.remove(yield* currentMemberCaller, params.id)
      }))
      .handle("rotateWebhookSecret", Effect.fn("Mobile.rotateWebhookSecret")(function*({ params, payload }) {
        return yield* actions.rotateSecret(yield* currentMemberCaller, params.id, payload)
      }))
      .handle("testWebhookEndpoint", Effect.fn("Mobile.testWebhookEndpoint")(function*({ params }) {
        return yield* actions.sendTest(yield* currentMemberCaller, params.id)
      }))
      .handle("recoverWebhookDeliveries", Effect.fn("Mobile.recoverWebhookDeliveries")(function*({ params, payload }) {
        return yield* actions.recover(yield* currentMemberCaller, params.id, payload)
      }))
      .handle("listWebhookDeliveries", Effect.fn("Mobile.listWebhookDeliveries")(function*({ params, query }) {
        return yield* actions.deliveries(yield* currentMemberCaller, params.id, query)
      }))
      .handle("getWebhookDelivery", Effect.fn("Mobile.getWebhookDelivery")(function*({ params }) {
        return yield* actions.delivery(yield* currentMemberCaller, params.id)
      }))
      .handle("replayWebhookDelivery", Effect.fn("Mobile.replayWebhookDelivery")(function*({ params }) {
        return yield* actions.replay(yield* currentMemberCaller, params.id)
      }))
      .handle("listEvents", Effect.fn("Mobile.listEvents")(function*({ query }) {
        return yield* actions.events(yield* currentMemberCaller, query)
      }))
      .handle("listEventTypes", Effect.fn("Mobile.listEventTypes")(function*() {
        return yield* actions.eventTypes
      }))
  })
)
