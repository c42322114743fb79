import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { currentCaller } from "./caller.ts"
import { makeWebhookActions } from "./webhook-actions.ts"

/** Handlers of the `/api/v1` webhook operations; each acts in the API key's workspace. */
export const WebhooksHandlers = HttpApiBuilder.group(
  Api,
  "webhooks",
  Effect.fn("WebhooksHandlers.make")(function*(handlers) {
    const actions = yield* makeWebhookActions
    return handlers
      .handle("listWebhookEndpoints", Effect.fn("V1.listWebhookEndpoints")(function*({ query }) {
        return yield* actions.list(yield* currentCaller, query)
      }))
      .handle("createWebhookEndpoint", Effect.fn("V1.createWebhookEndpoint")(function*({ payload }) {
        return yield* actions.create(yield* currentCaller, payload)
      }))
      .handle("getWebhookEndpoint", Effect.fn("V1.getWebhookEndpoint")(function*({ params }) {
        return yield* actions.get(yield* currentCaller, params.id)
      }))
      .handle("updateWebhookEndpoint", Effect.fn("V1.updateWebhookEndpoint")(function*({ params, payload }) {
        return yield* actions.update(yield* currentCaller, params.id, payload)
      }))
      .handle("deleteWebhookEndpoint", Effect.fn("V1.deleteWebhookEndpoint")(function*({ params }) {
        return yield* actions.remove(yield* currentCaller, params.id)
      }))
      .handle("rotateWebhookSecret", Effect.fn("V1.rotateWebhookSecret")(function*({ params, payload }) {
        return yield* actions.rotateSecret(yield* currentCaller, params.id, payload)
      }))
      .handle("testWebhookEndpoint", Effect.fn("V1.testWebhookEndpoint")(function*({ params }) {
        return yield* actions.sendTest(yield* currentCaller, params.id)
      }))
      .handle("recoverWebhookDeliveries", Effect.fn("V1.recoverWebhookDeliveries")(function*({ params, payload }) {
        return yield* actions.recover(yield* currentCaller, params.id, payload)
      }))
      .handle("listWebhookDeliveries", Effect.fn("V1.listWebhookDeliveries")(function*({ params, query }) {
        return yield* actions.deliveries(yield* currentCaller, params.id, query)
      }))
      .handle("getWebhookDelivery", Effect.fn("V1.getWebhookDelivery")(function*({ params }) {
        return yield* actions.delivery(yield* currentCaller, params.id)
      }))
      .handle("replayWebhookDelivery", Effect.fn("V1.replayWebhookDelivery")(function*({ params }) {
        return yield* actions.replay(yield* currentCaller, params.id)
      }))
      .handle("listEvents", Effect.fn("V1.listEvents")(function*({ query }) {
        return yield* actions.events(yield* currentCaller, query)
      }))
      .handle("listEventTypes", Effect.fn("V1.listEventTypes")(function*() {
        return yield* actions.eventTypes
      }))
  })
)
