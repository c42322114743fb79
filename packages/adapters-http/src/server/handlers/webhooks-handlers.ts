import { CurrentPrincipal, type DeliveryId, type DeliveryStatus, type WebhookEndpointId, WebhookEndpoints } from "@atrium/domain"
import { Duration, Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import type {
  CreateWebhookEndpoint,
  RecoverWebhookDeliveries,
  RotateWebhookSecret,
  TestWebhookEndpoint,
  UpdateWebhookEndpoint
} from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { makeEventTypeList } from "./event-type-catalog.ts"
import { type PageParams, pageRequestOf } from "./page-request.ts"
import {
  toEventView,
  toWebhookDeliveryView,
  toWebhookDeliveryWithAttempts,
  toWebhookEndpointView,
  toWebhookEndpointWithSecret
} from "./webhook-views.ts"

interface EndpointParams {
  readonly params: { readonly id: WebhookEndpointId }
}
interface DeliveryParams {
  readonly params: { readonly id: DeliveryId }
}

/**
 * The webhook operations, written once over the domain for every interface that mounts them (`/api/v1` with keys,
 * `/api/mobile` with sessions): each acts as the request's principal, and `WebhookEndpoints` applies the policy itself.
 */
const makeWebhookHandlers = Effect.gen(function*() {
  const endpoints = yield* WebhookEndpoints
  // The catalog is fixed at build time: its JSON Schemas are generated once, not per request.
  const eventTypes = { data: makeEventTypeList() }
  return {
    listWebhookEndpoints: Effect.fn("Webhooks.list")(function*({ query }: { readonly query: PageParams }) {
      const page = yield* endpoints.list(yield* CurrentPrincipal, pageRequestOf(query))
      return { data: page.data.map(toWebhookEndpointView), nextCursor: page.nextCursor }
    }),
    createWebhookEndpoint: Effect.fn("Webhooks.create")(function*({ payload }: { readonly payload: CreateWebhookEndpoint }) {
      return toWebhookEndpointWithSecret(yield* endpoints.create(yield* CurrentPrincipal, payload))
    }),
    getWebhookEndpoint: Effect.fn("Webhooks.get")(function*({ params }: EndpointParams) {
      return toWebhookEndpointView(yield* endpoints.get(yield* CurrentPrincipal, params.id))
    }),
    updateWebhookEndpoint: Effect.fn("Webhooks.update")(
      function*({ params, payload }: EndpointParams & { readonly payload: UpdateWebhookEndpoint }) {
        return toWebhookEndpointView(yield* endpoints.update(yield* CurrentPrincipal, params.id, payload))
      }
    ),
    deleteWebhookEndpoint: Effect.fn("Webhooks.remove")(function*({ params }: EndpointParams) {
      yield* endpoints.remove(yield* CurrentPrincipal, params.id)
    }),
    rotateWebhookSecret: Effect.fn("Webhooks.rotateSecret")(
      function*({ params, payload }: EndpointParams & { readonly payload: RotateWebhookSecret | null }) {
        const seconds = payload === null ? undefined : payload.gracePeriodSeconds
        const grace = seconds === undefined ? undefined : Duration.seconds(seconds)
        return toWebhookEndpointWithSecret(yield* endpoints.rotateSecret(yield* CurrentPrincipal, params.id, grace))
      }
    ),
    testWebhookEndpoint: Effect.fn("Webhooks.sendTest")(function*({ params, payload }: EndpointParams & { readonly payload: TestWebhookEndpoint | null }) {
      return toWebhookDeliveryView(yield* endpoints.sendTest(yield* CurrentPrincipal, params.id, payload?.eventType))
    }),
    recoverWebhookDeliveries: Effect.fn("Webhooks.recover")(
      function*({ params, payload }: EndpointParams & { readonly payload: RecoverWebhookDeliveries }) {
        const replays = yield* endpoints.recover(yield* CurrentPrincipal, params.id, payload.since)
        return { data: replays.map(toWebhookDeliveryView) }
      }
    ),
    listWebhookDeliveries: Effect.fn("Webhooks.deliveries")(
      function*({ params, query }: EndpointParams & { readonly query: PageParams & { readonly status?: DeliveryStatus | undefined } }) {
        const page = yield* endpoints.deliveries(yield* CurrentPrincipal, params.id, query.status, pageRequestOf(query))
        return { data: page.data.map(toWebhookDeliveryView), nextCursor: page.nextCursor }
      }
    ),
    getWebhookDelivery: Effect.fn("Webhooks.delivery")(function*({ params }: DeliveryParams) {
      return toWebhookDeliveryWithAttempts(yield* endpoints.delivery(yield* CurrentPrincipal, params.id))
    }),
    replayWebhookDelivery: Effect.fn("Webhooks.replay")(function*({ params }: DeliveryParams) {
      return toWebhookDeliveryView(yield* endpoints.replay(yield* CurrentPrincipal, params.id))
    }),
    listEvents: Effect.fn("Webhooks.events")(function*({ query }: { readonly query: PageParams }) {
      const page = yield* endpoints.events(yield* CurrentPrincipal, pageRequestOf(query))
      return { data: page.data.map(toEventView), nextCursor: page.nextCursor }
    }),
    listEventTypes: () => Effect.succeed(eventTypes)
  }
})

/** The webhook operations under `/api/v1`. */
export const WebhooksHandlers = Layer.unwrap(Effect.map(makeWebhookHandlers, (implemented) =>
  leanGroup(HttpApiBuilder.group(Api, "webhooks", (handlers) => handlers.handleAll(implemented)))))

/** The same operations under `/api/mobile`. */
export const MobileWebhooksHandlers = Layer.unwrap(Effect.map(makeWebhookHandlers, (implemented) =>
  leanGroup(HttpApiBuilder.group(Api, "mobileWebhooks", (handlers) => handlers.handleAll(implemented)))))
