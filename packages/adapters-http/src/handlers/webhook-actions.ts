import { type DeliveryId, type DeliveryStatus, EventOutbox, type WebhookEndpointId, WebhookEndpoints } from "@atrium/domain"
import { Duration, Effect } from "effect"
import type {
  CreateWebhookEndpoint,
  RecoverWebhookDeliveries,
  RotateWebhookSecret,
  UpdateWebhookEndpoint
} from "../api/webhook-schemas.ts"
import type { Caller } from "./caller.ts"
import { conflictProblem, invalidInputProblem, notFoundProblem, unavailableProblem } from "./domain-problems.ts"
import { makeEventTypeList } from "./event-type-catalog.ts"
import { pageRequestOf } from "./page-request.ts"
import {
  toEventView,
  toWebhookDeliveryView,
  toWebhookDeliveryWithAttempts,
  toWebhookEndpointView,
  toWebhookEndpointWithSecret
} from "./webhook-views.ts"

interface PageParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/**
 * The webhook operations over the domain, answering wire views and problems. Shared by every interface that
 * manages webhooks; each resolves its own `Caller` (API key or member session) and passes it in.
 */
export const makeWebhookActions = Effect.gen(function*() {
  const endpoints = yield* WebhookEndpoints
  const outbox = yield* EventOutbox
  // The catalog is fixed at build time: its JSON Schemas are generated once, not per request.
  const eventTypes = { data: makeEventTypeList() }

  return {
    list: Effect.fn("Webhooks.list")(function*(caller: Caller, query: PageParams) {
      const page = yield* endpoints.list(caller.workspaceId, pageRequestOf(query)).pipe(
        Effect.catchTag("Unavailable", unavailableProblem)
      )
      return { data: page.data.map(toWebhookEndpointView), nextCursor: page.nextCursor }
    }),
    create: Effect.fn("Webhooks.create")(function*(caller: Caller, payload: CreateWebhookEndpoint) {
      const created = yield* endpoints.create({
        workspaceId: caller.workspaceId,
        actor: caller.actor,
        url: payload.url,
        description: payload.description,
        eventTypes: payload.eventTypes
      }).pipe(Effect.catchTags({ Conflict: conflictProblem, InvalidInput: invalidInputProblem, Unavailable: unavailableProblem }))
      return toWebhookEndpointWithSecret(created)
    }),
    get: Effect.fn("Webhooks.get")(function*(caller: Caller, id: WebhookEndpointId) {
      const endpoint = yield* endpoints.get(caller.workspaceId, id).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
      )
      return toWebhookEndpointView(endpoint)
    }),
    update: Effect.fn("Webhooks.update")(function*(caller: Caller, id: WebhookEndpointId, payload: UpdateWebhookEndpoint) {
      const updated = yield* endpoints.update(caller.workspaceId, id, payload, caller.actor).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, InvalidInput: invalidInputProblem, Unavailable: unavailableProblem })
      )
      return toWebhookEndpointView(updated)
    }),
    remove: Effect.fn("Webhooks.remove")(function*(caller: Caller, id: WebhookEndpointId) {
      yield* endpoints.remove(caller.workspaceId, id, caller.actor).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
      )
    }),
    rotateSecret: Effect.fn("Webhooks.rotateSecret")(function*(caller: Caller, id: WebhookEndpointId, payload: RotateWebhookSecret) {
      const grace = payload.gracePeriodSeconds === undefined ? undefined : Duration.seconds(payload.gracePeriodSeconds)
      const rotated = yield* endpoints.rotateSecret(caller.workspaceId, id, grace, caller.actor).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, InvalidInput: invalidInputProblem, Unavailable: unavailableProblem })
      )
      return toWebhookEndpointWithSecret(rotated)
    }),
    sendTest: Effect.fn("Webhooks.sendTest")(function*(caller: Caller, id: WebhookEndpointId) {
      const delivery = yield* endpoints.sendTest(caller.workspaceId, id, caller.actor).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, Conflict: conflictProblem, Unavailable: unavailableProblem })
      )
      return toWebhookDeliveryView(delivery)
    }),
    recover: Effect.fn("Webhooks.recover")(function*(caller: Caller, id: WebhookEndpointId, payload: RecoverWebhookDeliveries) {
      const replays = yield* endpoints.recover(caller.workspaceId, id, payload.since, caller.actor).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, InvalidInput: invalidInputProblem, Unavailable: unavailableProblem })
      )
      return { data: replays.map(toWebhookDeliveryView) }
    }),
    deliveries: Effect.fn("Webhooks.deliveries")(
      function*(caller: Caller, id: WebhookEndpointId, query: PageParams & { readonly status?: DeliveryStatus | undefined }) {
        const page = yield* endpoints.deliveries(caller.workspaceId, id, query.status, pageRequestOf(query)).pipe(
          Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
        return { data: page.data.map(toWebhookDeliveryView), nextCursor: page.nextCursor }
      }
    ),
    delivery: Effect.fn("Webhooks.delivery")(function*(caller: Caller, id: DeliveryId) {
      const found = yield* endpoints.delivery(caller.workspaceId, id).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
      )
      return toWebhookDeliveryWithAttempts(found)
    }),
    replay: Effect.fn("Webhooks.replay")(function*(caller: Caller, id: DeliveryId) {
      const replayed = yield* endpoints.replay(caller.workspaceId, id, caller.actor).pipe(
        Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
      )
      return toWebhookDeliveryView(replayed)
    }),
    events: Effect.fn("Webhooks.events")(function*(caller: Caller, query: PageParams) {
      const page = yield* outbox.list(caller.workspaceId, pageRequestOf(query)).pipe(
        Effect.catchTag("Unavailable", unavailableProblem)
      )
      return { data: page.data.map(toEventView), nextCursor: page.nextCursor }
    }),
    eventTypes: Effect.succeed(eventTypes)
  }
})

/** The webhook operations, as built by `makeWebhookActions`. */
export type WebhookActions = Effect.Success<typeof makeWebhookActions>
