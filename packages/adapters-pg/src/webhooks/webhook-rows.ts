import { DeliveryAttempt, DomainEvent, EndpointSecret, WebhookDelivery, WebhookEndpoint } from "@atrium/domain"
import { Schema } from "effect"

/** A webhook endpoint as the driver returns it: `timestamptz` as `Date`, `event_types` as `text[]` or NULL. */
const EndpointFromDriver = Schema.Struct({
  ...WebhookEndpoint.fields,
  failingSince: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
})

/** The `webhook_endpoints` row. */
export const WebhookEndpointRow = EndpointFromDriver.pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  eventTypes: "event_types",
  disabledReason: "disabled_reason",
  failingSince: "failing_since",
  createdAt: "created_at",
  updatedAt: "updated_at"
}))

/** The `webhook_endpoint_secrets` row as the driver returns it. */
export const EndpointSecretRow = Schema.Struct({
  ...EndpointSecret.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({ endpointId: "endpoint_id", createdAt: "created_at", expiresAt: "expires_at" }))

/** The `webhook_deliveries` row as the driver returns it. */
export const WebhookDeliveryRow = Schema.Struct({
  ...WebhookDelivery.fields,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  endpointId: "endpoint_id",
  eventId: "event_id",
  eventType: "event_type",
  attemptCount: "attempt_count",
  nextAttemptAt: "next_attempt_at",
  lastStatusCode: "last_status_code",
  replayOf: "replay_of",
  createdAt: "created_at",
  updatedAt: "updated_at"
}))

/** The `webhook_attempts` row as the driver returns it (`response_headers` as parsed `jsonb`). */
export const DeliveryAttemptRow = Schema.Struct({
  ...DeliveryAttempt.fields,
  startedAt: Schema.DateTimeUtcFromDate,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  deliveryId: "delivery_id",
  startedAt: "started_at",
  durationMillis: "duration_millis",
  statusCode: "status_code",
  errorKind: "error_kind",
  responseHeaders: "response_headers",
  responseBody: "response_body",
  remoteAddress: "remote_address",
  nextAttemptAt: "next_attempt_at"
}))

/**
 * One claim statement's answer as one JSON document: the claimed deliveries with their events, and each of their
 * endpoints once with its secrets (newest first). One decode per claim builds the domain's instances directly.
 */
export const ClaimedBatchJson = Schema.toCodecJson(Schema.Struct({
  deliveries: Schema.Array(Schema.Struct({ delivery: WebhookDelivery, event: DomainEvent })),
  endpoints: Schema.Array(Schema.Struct({ endpoint: WebhookEndpoint, secrets: Schema.Array(EndpointSecret) }))
}))
