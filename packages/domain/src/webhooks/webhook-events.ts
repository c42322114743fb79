import { Schema } from "effect"
import { AiTaskEvents } from "../ai/index.ts"
import { defineEvent } from "../audit/index.ts"
import { CustomDomainEvents } from "../domains/index.ts"
import { BillingEvents } from "../billing/index.ts"
import { EntitlementEvents } from "../entitlements/index.ts"
import { FeedbackEvents } from "../feedback/index.ts"
import { IdentityEvents } from "../identity/index.ts"
import { ApiKeyEvents } from "../keys/index.ts"
import { ScheduleEvents } from "../schedules/index.ts"
import { PurchaseEvents } from "../purchases/index.ts"
import { IsoTime } from "../shared/index.ts"

/** Events of the webhooks area. */
export const WebhookEvents = {
  endpointDisabled: defineEvent(
    "webhook_endpoint.disabled",
    "A webhook endpoint was disabled (continuous failures, 410 Gone, or by a person); sent to the workspace's other endpoints.",
    Schema.Struct({
      endpoint: Schema.Struct({ id: Schema.String, url: Schema.String, reason: Schema.String, disabledAt: IsoTime })
    })
  ),
  test: defineEvent("webhook.test", "A test event sent on request to one endpoint.", Schema.Struct({ message: Schema.String, endpointId: Schema.String }))
}

/** Every event Atrium emits, with a description and a payload schema, by type. Payloads never carry secrets. */
export const eventCatalog = {
  [ApiKeyEvents.created.type]: ApiKeyEvents.created,
  [ApiKeyEvents.revoked.type]: ApiKeyEvents.revoked,
  [ApiKeyEvents.rolled.type]: ApiKeyEvents.rolled,
  [AiTaskEvents.succeeded.type]: AiTaskEvents.succeeded,
  [AiTaskEvents.failed.type]: AiTaskEvents.failed,
  [IdentityEvents.memberJoined.type]: IdentityEvents.memberJoined,
  [IdentityEvents.memberRemoved.type]: IdentityEvents.memberRemoved,
  [IdentityEvents.memberRoleChanged.type]: IdentityEvents.memberRoleChanged,
  [IdentityEvents.invitationCreated.type]: IdentityEvents.invitationCreated,
  [IdentityEvents.invitationAccepted.type]: IdentityEvents.invitationAccepted,
  [EntitlementEvents.granted.type]: EntitlementEvents.granted,
  [EntitlementEvents.revoked.type]: EntitlementEvents.revoked,
  [BillingEvents.capReached.type]: BillingEvents.capReached,
  [ScheduleEvents.runStarted.type]: ScheduleEvents.runStarted,
  [ScheduleEvents.runSkipped.type]: ScheduleEvents.runSkipped,
  [ScheduleEvents.paused.type]: ScheduleEvents.paused,
  [PurchaseEvents.created.type]: PurchaseEvents.created,
  [PurchaseEvents.statusChanged.type]: PurchaseEvents.statusChanged,
  [PurchaseEvents.productChanged.type]: PurchaseEvents.productChanged,
  [PurchaseEvents.refunded.type]: PurchaseEvents.refunded,
  [CustomDomainEvents.verified.type]: CustomDomainEvents.verified,
  [CustomDomainEvents.misconfigured.type]: CustomDomainEvents.misconfigured,
  [CustomDomainEvents.verificationFailed.type]: CustomDomainEvents.verificationFailed,
  [WebhookEvents.endpointDisabled.type]: WebhookEvents.endpointDisabled,
  [WebhookEvents.test.type]: WebhookEvents.test,
  [FeedbackEvents.created.type]: FeedbackEvents.created,
  [FeedbackEvents.statusChanged.type]: FeedbackEvents.statusChanged
}

/** The names of all catalog event types. */
export type EventType = keyof typeof eventCatalog

/** The catalog as a list, in catalog order. */
export const eventDefinitions = Object.values(eventCatalog)

/** The event types as a schema (`GET /api/v1/event-types`). */
export const EventType = Schema.Literals(eventDefinitions.map((definition) => definition.type)).annotate({
  identifier: "EventType",
  description: "Event type from the catalog (`GET /api/v1/event-types`)"
})

/** The payload type of one event type. */
export type EventData<T extends EventType> = (typeof eventCatalog)[T]["data"]["Type"]
