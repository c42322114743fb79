import { DeliveryAttempt, deliveryHeaders, deriveView, DomainEvent, type EndpointWithSecret, envelopeOf, WebhookDelivery, WebhookEndpoint } from "@atrium/domain"
import { Option, Redacted } from "effect"
import { EventView } from "@atrium/client"
import {
  WebhookDeliveryAttemptView,
  WebhookDeliveryView,
  type WebhookDeliveryWithAttempts,
  WebhookEndpointView,
  type WebhookEndpointWithSecret
} from "@atrium/client"

/** An endpoint on the wire: no secret (it is not on the model), no workspace (it is the caller's). */
export const toWebhookEndpointView = deriveView(WebhookEndpoint, WebhookEndpointView, { withheld: ["workspaceId"] })

/** An endpoint with its freshly minted secret: only create and rotate-secret answer this. */
export const toWebhookEndpointWithSecret = (created: EndpointWithSecret): WebhookEndpointWithSecret => ({
  ...toWebhookEndpointView(created.endpoint),
  secret: Redacted.value(created.secret)
})

/** A delivery on the wire. */
export const toWebhookDeliveryView = deriveView(WebhookDelivery, WebhookDeliveryView, { withheld: ["workspaceId"] })

/** An attempt record on the wire; the address connected to stays internal. */
const toWebhookDeliveryAttemptView = deriveView(DeliveryAttempt, WebhookDeliveryAttemptView, { withheld: ["deliveryId", "remoteAddress"] })

/** An outbox event in the envelope webhooks carry. */
export const toEventView = deriveView(DomainEvent, EventView, { withheld: [] })

/** A delivery with its attempts, oldest first, and the request it sends (the event's envelope). */
export const toWebhookDeliveryWithAttempts = (found: {
  readonly delivery: WebhookDelivery
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  readonly event: Option.Option<DomainEvent>
}): WebhookDeliveryWithAttempts => ({
  ...toWebhookDeliveryView(found.delivery),
  attempts: found.attempts.map(toWebhookDeliveryAttemptView),
  request: Option.match(found.event, {
    onNone: () => null,
    onSome: (event) => ({ headers: deliveryHeaders(event.id), body: envelopeOf(toEventView(event)) })
  })
})
