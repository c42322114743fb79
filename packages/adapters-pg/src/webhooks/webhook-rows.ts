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
 * The event half of a claim row. The delivery's own `event_id`, `event_type` and `workspace_id` are the event's,
 * so only its time and payload travel in columns of their own.
 */
export const ClaimedEventRow = Schema.Struct({
  ...DomainEvent.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(Schema.encodeKeys({ id: "event_id", type: "event_type", workspaceId: "workspace_id", createdAt: "event_created_at", data: "event_data" }))

/** The endpoint half of a claim row, its columns prefixed `endpoint_` (the delivery's `endpoint_id` is its id). */
export const ClaimedEndpointRow = EndpointFromDriver.pipe(Schema.encodeKeys({
  id: "endpoint_id",
  workspaceId: "endpoint_workspace_id",
  url: "endpoint_url",
  description: "endpoint_description",
  eventTypes: "endpoint_event_types",
  enabled: "endpoint_enabled",
  disabledReason: "endpoint_disabled_reason",
  failingSince: "endpoint_failing_since",
  createdAt: "endpoint_created_at",
  updatedAt: "endpoint_updated_at"
}))
