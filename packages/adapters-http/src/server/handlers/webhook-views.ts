import type { DeliveryAttempt, DomainEvent, EndpointWithSecret, WebhookDelivery, WebhookEndpoint } from "@atrium/domain"
import { DateTime, Option, Redacted } from "effect"
import type { EventView } from "../../contract/event-schemas.ts"
import type {
  WebhookDeliveryAttemptView,
  WebhookDeliveryView,
  WebhookDeliveryWithAttempts,
  WebhookEndpointView,
  WebhookEndpointWithSecret
} from "../../contract/webhook-schemas.ts"

const iso = (time: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(time, DateTime.formatIso))

/** An endpoint on the wire: no secret, no workspace (it is the caller's). */
export const toWebhookEndpointView = (endpoint: WebhookEndpoint): WebhookEndpointView => ({
  id: endpoint.id,
  url: endpoint.url,
  description: endpoint.description,
  eventTypes: Option.getOrNull(endpoint.eventTypes),
  enabled: endpoint.enabled,
  disabledReason: Option.getOrNull(endpoint.disabledReason),
  failingSince: iso(endpoint.failingSince),
  createdAt: DateTime.formatIso(endpoint.createdAt),
  updatedAt: DateTime.formatIso(endpoint.updatedAt)
})

/** An endpoint with its freshly minted secret: only create and rotate-secret answer this. */
export const toWebhookEndpointWithSecret = (created: EndpointWithSecret): WebhookEndpointWithSecret => ({
  ...toWebhookEndpointView(created.endpoint),
  secret: Redacted.value(created.secret)
})

/** A delivery on the wire. */
export const toWebhookDeliveryView = (delivery: WebhookDelivery): WebhookDeliveryView => ({
  id: delivery.id,
  endpointId: delivery.endpointId,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  status: delivery.status,
  attemptCount: delivery.attemptCount,
  nextAttemptAt: iso(delivery.nextAttemptAt),
  lastStatusCode: Option.getOrNull(delivery.lastStatusCode),
  replayOf: Option.getOrNull(delivery.replayOf),
  createdAt: DateTime.formatIso(delivery.createdAt),
  updatedAt: DateTime.formatIso(delivery.updatedAt)
})

/** An attempt record on the wire; the address connected to stays internal. */
const toWebhookDeliveryAttemptView = (attempt: DeliveryAttempt): WebhookDeliveryAttemptView => ({
  id: attempt.id,
  number: attempt.number,
  startedAt: DateTime.formatIso(attempt.startedAt),
  durationMillis: attempt.durationMillis,
  statusCode: Option.getOrNull(attempt.statusCode),
  errorKind: Option.getOrNull(attempt.errorKind),
  responseHeaders: attempt.responseHeaders,
  responseBody: attempt.responseBody,
  nextAttemptAt: iso(attempt.nextAttemptAt)
})

/** A delivery with its attempts, oldest first. */
export const toWebhookDeliveryWithAttempts = (found: {
  readonly delivery: WebhookDelivery
  readonly attempts: ReadonlyArray<DeliveryAttempt>
}): WebhookDeliveryWithAttempts => ({
  ...toWebhookDeliveryView(found.delivery),
  attempts: found.attempts.map(toWebhookDeliveryAttemptView)
})

/** An outbox event in the envelope webhooks carry. */
export const toEventView = (event: DomainEvent): EventView => ({
  id: event.id,
  type: event.type,
  createdAt: DateTime.formatIso(event.createdAt),
  workspaceId: event.workspaceId,
  data: event.data
})
