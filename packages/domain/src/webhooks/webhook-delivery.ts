import { Duration, Schema } from "effect"
import { AttemptId, DeliveryId, EventId, WebhookEndpointId, WorkspaceId } from "../shared/index.ts"
import { AttemptErrorKind, type TransportResult } from "./webhook-transport.ts"
import { EventType } from "./webhook-events.ts"

/** Where a delivery stands: waiting for an attempt, delivered, or given up on. */
export const DeliveryStatus = Schema.Literals(["pending", "succeeded", "failed"]).annotate({
  description: "pending: an attempt is due or under way; succeeded: a 2xx arrived; failed: retries are exhausted or the endpoint was disabled"
})
export type DeliveryStatus = typeof DeliveryStatus.Type

/** One event on its way to one endpoint; its id is the delivery (`msg_…`), its `eventId` the `webhook-id` header. */
export class WebhookDelivery extends Schema.Class<WebhookDelivery>("@atrium/domain/WebhookDelivery")({
  id: DeliveryId,
  workspaceId: WorkspaceId,
  endpointId: WebhookEndpointId,
  eventId: EventId,
  eventType: EventType,
  status: DeliveryStatus,
  attemptCount: Schema.Int,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  lastStatusCode: Schema.OptionFromNullOr(Schema.Int),
  /** The delivery this one replays, when it is a replay (a new attempt chain, the same `webhook-id`). */
  replayOf: Schema.OptionFromNullOr(DeliveryId),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}

/** The record of one attempt: what was sent when, and what came back. */
export class DeliveryAttempt extends Schema.Class<DeliveryAttempt>("@atrium/domain/DeliveryAttempt")({
  id: AttemptId,
  deliveryId: DeliveryId,
  number: Schema.Int,
  startedAt: Schema.DateTimeUtc,
  durationMillis: Schema.Int,
  statusCode: Schema.OptionFromNullOr(Schema.Int),
  errorKind: Schema.OptionFromNullOr(AttemptErrorKind),
  responseHeaders: Schema.Record(Schema.String, Schema.String),
  responseBody: Schema.String,
  remoteAddress: Schema.OptionFromNullOr(Schema.String),
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {}

/** Delay before each retry after attempt n (index n-1); attempt 1 is immediate. Eight attempts in all. */
export const retryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(5),
  Duration.minutes(5),
  Duration.minutes(30),
  Duration.hours(2),
  Duration.hours(5),
  Duration.hours(10),
  Duration.hours(10)
]

/** Bounds within which a receiver's `Retry-After` is honoured instead of the schedule's step. */
export const retryAfterBounds = { minimum: Duration.seconds(5), maximum: Duration.hours(24) } as const

/** What to do after an attempt. */
export type AttemptVerdict =
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "RetryAfter"; readonly delay: Duration.Duration }
  | { readonly _tag: "Exhausted" }
  | { readonly _tag: "EndpointGone" }

/**
 * The retry policy: a 2xx is done; 410 Gone disables the endpoint; otherwise retry on the schedule with ±20 % jitter
 * (`jitter` in [-1, 1]), honouring a 429/503 `Retry-After` within bounds, until the schedule runs out.
 */
export const judgeAttempt = (
  attemptNumber: number,
  result: TransportResult,
  jitter: number,
  delays: ReadonlyArray<Duration.Duration> = retryDelays
): AttemptVerdict => {
  if (result.ok) return { _tag: "Delivered" }
  if (result.statusCode === 410) return { _tag: "EndpointGone" }
  const step = delays[attemptNumber - 1]
  if (step === undefined) return { _tag: "Exhausted" }
  const honoursRetryAfter = (result.statusCode === 429 || result.statusCode === 503) && result.retryAfterSeconds !== null
  if (honoursRetryAfter && result.retryAfterSeconds !== null) {
    const asked = Duration.seconds(result.retryAfterSeconds)
    return { _tag: "RetryAfter", delay: Duration.clamp(asked, retryAfterBounds) }
  }
  const factor = 1 + 0.2 * Math.max(-1, Math.min(1, jitter))
  return { _tag: "RetryAfter", delay: Duration.millis(Math.round(Duration.toMillis(step) * factor)) }
}

/** How long an endpoint may fail without a single success before it is disabled (configurable). */
export const defaultDisableAfter = Duration.days(5)

/** The headers every attempt of a delivery sends, besides its own `webhook-timestamp` and `webhook-signature`. */
export const deliveryHeaders = (eventId: string): Readonly<Record<string, string>> => ({
  "content-type": "application/json",
  "user-agent": "Atrium-Webhooks/1",
  "webhook-id": eventId
})

/** The wire body of a delivery: the event envelope `{ id, type, createdAt, workspaceId, data }`. */
export const envelopeOf = (event: { readonly id: string; readonly type: string; readonly createdAt: string; readonly workspaceId: string; readonly data: unknown }) =>
  JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, workspaceId: event.workspaceId, data: event.data })

