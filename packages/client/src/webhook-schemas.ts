import {
  AttemptErrorKind,
  AttemptId,
  DeliveryId,
  DeliveryStatus,
  EventId,
  EventType,
  isSafeText,
  rotationGrace,
  WebhookEndpointId
} from "@atrium/domain"
import { Duration, Schema } from "effect"
import { NextCursor } from "./page-query.ts"
import { Instant } from "./instant.ts"

// Shared by `/api/v1` and `/api/mobile`: the identifiers name the OpenAPI components both interfaces expose.
// Optional body fields are exact (`optionalKey`): `null` is a value (`eventTypes: null` = every type), never "absent".

const isoTime = (description: string) =>
  Schema.String.annotate({ format: "date-time", description: `${description}, ISO-8601 UTC`, examples: ["2026-01-31T12:00:00.000Z"] })

const Url = Schema.String.check(Schema.isBetweenLength(1, 2048)).annotate({
  description: "HTTPS URL the deliveries are POSTed to; private, loopback and IP-literal destinations are refused",
  examples: ["https://hooks.example.com/atrium"]
})
const Description = Schema.String.check(Schema.isMaxLength(500)).annotate({ description: "Free text for people, up to 500 characters" })
// What a client sends passes the one safe-text rule; views echo what is stored and keep the plain shapes.
const UrlInput = Url.check(isSafeText())
const DescriptionInput = Description.check(isSafeText({ multiline: true }))
const EventTypes = Schema.NullOr(Schema.Array(EventType).check(Schema.isMaxLength(50))).annotate({
  description: "Event types to receive; `null` subscribes to every type, now and future"
})

/** A webhook endpoint as listed and read: never its signing secret. */
export const WebhookEndpointView = Schema.Struct({
  id: WebhookEndpointId,
  url: Url,
  description: Schema.String,
  eventTypes: EventTypes,
  enabled: Schema.Boolean.annotate({ description: "Whether deliveries are sent" }),
  disabledReason: Schema.NullOr(Schema.String).annotate({ description: "Why the endpoint was disabled, when it is" }),
  failingSince: Schema.NullOr(isoTime("Start of the current unbroken run of failed attempts")),
  createdAt: isoTime("Creation time"),
  updatedAt: isoTime("Last change")
}).annotate({ identifier: "WebhookEndpoint", description: "Where to POST which events" })
export type WebhookEndpointView = typeof WebhookEndpointView.Type

/** An endpoint with its new signing secret: the only two answers (create, rotate-secret) that carry it. */
export const WebhookEndpointWithSecret = Schema.Struct({
  ...WebhookEndpointView.fields,
  secret: Schema.String.annotate({
    description: "Standard Webhooks signing secret (`whsec_…`). Shown only now: store it, it cannot be read again",
    examples: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]
  })
}).annotate({ identifier: "WebhookEndpointWithSecret", description: "A webhook endpoint and its signing secret" })
export type WebhookEndpointWithSecret = typeof WebhookEndpointWithSecret.Type

/** One page of endpoints. */
export const WebhookEndpointList = Schema.Struct({
  data: Schema.Array(WebhookEndpointView),
  nextCursor: NextCursor
}).annotate({ identifier: "WebhookEndpointList" })

/** `POST …/webhook-endpoints`: subscribe an endpoint (at most 20 per workspace). */
export const CreateWebhookEndpoint = Schema.Struct({
  url: UrlInput,
  description: Schema.optionalKey(DescriptionInput),
  eventTypes: Schema.optionalKey(EventTypes)
}).annotate({ identifier: "CreateWebhookEndpoint", description: "A new subscription; unknown fields are refused" })
export type CreateWebhookEndpoint = typeof CreateWebhookEndpoint.Type

/** `PATCH …/webhook-endpoints/{id}`: absent fields stay as they are. */
export const UpdateWebhookEndpoint = Schema.Struct({
  url: Schema.optionalKey(UrlInput),
  description: Schema.optionalKey(DescriptionInput),
  eventTypes: Schema.optionalKey(EventTypes),
  enabled: Schema.optionalKey(Schema.Boolean.annotate({ description: "`true` re-enables a disabled endpoint (clearing its failure run)" }))
}).annotate({ identifier: "UpdateWebhookEndpoint", description: "A partial change; unknown fields are refused" })
export type UpdateWebhookEndpoint = typeof UpdateWebhookEndpoint.Type

/** `POST …/rotate-secret`: a new secret; the old one keeps signing for the grace period. */
export const RotateWebhookSecret = Schema.Struct({
  gracePeriodSeconds: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Duration.toSeconds(rotationGrace.maximum) })).annotate({
      description: "Seconds the previous secret still signs (both signatures are sent); default 86400 (24 h), at most 604800 (7 days)"
    })
  )
}).annotate({ identifier: "RotateWebhookSecret" })
export type RotateWebhookSecret = typeof RotateWebhookSecret.Type

/** `POST …/{id}/test`: optional, and so is the body itself (none sends `webhook.test`). */
export const TestWebhookEndpoint = Schema.Struct({
  eventType: Schema.optionalKey(EventType.annotate({
    description: "Send an example event of this type (made from its payload schema) instead of `webhook.test`"
  }))
}).annotate({ identifier: "TestWebhookEndpoint" })
export type TestWebhookEndpoint = typeof TestWebhookEndpoint.Type

/** `POST …/recover`: replay every failed delivery created since a time. */
export const RecoverWebhookDeliveries = Schema.Struct({
  since: Instant.annotate({ description: "ISO-8601 time, at most 14 days ago" })
}).annotate({ identifier: "RecoverWebhookDeliveries" })
export type RecoverWebhookDeliveries = typeof RecoverWebhookDeliveries.Type

const deliveryFields = {
  id: DeliveryId,
  endpointId: WebhookEndpointId,
  eventId: EventId.annotate({ description: "The event, sent as the `webhook-id` header; the same across retries and replays" }),
  eventType: EventType,
  status: DeliveryStatus,
  attemptCount: Schema.Int.annotate({ description: "Attempts made so far" }),
  nextAttemptAt: Schema.NullOr(isoTime("When the next attempt is due")),
  lastStatusCode: Schema.NullOr(Schema.Int).annotate({ description: "HTTP status of the last attempt, if one answered" }),
  replayOf: Schema.NullOr(DeliveryId).annotate({ description: "The delivery this one replays" }),
  createdAt: isoTime("Creation time"),
  updatedAt: isoTime("Last change")
}

/** One event on its way to one endpoint. */
export const WebhookDeliveryView = Schema.Struct(deliveryFields).annotate({
  identifier: "WebhookDelivery",
  description: "One event on its way to one endpoint, with its retry state"
})
export type WebhookDeliveryView = typeof WebhookDeliveryView.Type

/** The record of one delivery attempt. */
export const WebhookDeliveryAttemptView = Schema.Struct({
  id: AttemptId,
  number: Schema.Int.annotate({ description: "1 for the first attempt" }),
  startedAt: isoTime("When the attempt started"),
  durationMillis: Schema.Int,
  statusCode: Schema.NullOr(Schema.Int).annotate({ description: "HTTP status the endpoint answered, if it answered" }),
  errorKind: Schema.NullOr(AttemptErrorKind),
  responseHeaders: Schema.Record(Schema.String, Schema.String).annotate({ description: "Response headers of note, lower-cased" }),
  responseBody: Schema.String.annotate({ description: "At most the first 4 KiB of the response body" }),
  nextAttemptAt: Schema.NullOr(isoTime("When the retry this attempt scheduled is due"))
}).annotate({ identifier: "WebhookDeliveryAttempt" })
export type WebhookDeliveryAttemptView = typeof WebhookDeliveryAttemptView.Type

/** A delivery with every attempt, oldest first. */
export const WebhookDeliveryWithAttempts = Schema.Struct({
  ...deliveryFields,
  attempts: Schema.Array(WebhookDeliveryAttemptView),
  request: Schema.optionalKey(Schema.NullOr(Schema.Struct({
    headers: Schema.Record(Schema.String, Schema.String).annotate({
      description: "Headers every attempt sends; each attempt adds its own `webhook-timestamp` (its start, unix seconds) and `webhook-signature`"
    }),
    body: Schema.String.annotate({ description: "The exact body POSTed: the event envelope `{ id, type, createdAt, workspaceId, data }`" })
  })).annotate({ description: "What is sent to the endpoint; `null` when the event is no longer stored" }))
}).annotate({ identifier: "WebhookDeliveryWithAttempts" })
export type WebhookDeliveryWithAttempts = typeof WebhookDeliveryWithAttempts.Type

/** One page of deliveries. */
export const WebhookDeliveryList = Schema.Struct({
  data: Schema.Array(WebhookDeliveryView),
  nextCursor: NextCursor
}).annotate({ identifier: "WebhookDeliveryList" })

/** The deliveries a recovery started. */
export const RecoveredWebhookDeliveries = Schema.Struct({
  data: Schema.Array(WebhookDeliveryView)
}).annotate({ identifier: "RecoveredWebhookDeliveries", description: "One new pending delivery per failed one" })

/** `?status=` filter of a delivery list. */
export const DeliveryStatusQuery = { status: Schema.optional(DeliveryStatus) }
