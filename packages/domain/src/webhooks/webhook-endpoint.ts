import { DateTime, Option, Schema } from "effect"
import { SafeMultilineText, SafeText, WebhookEndpointId, WorkspaceId } from "../shared/index.ts"
import { EventType } from "./webhook-events.ts"

/** How many endpoints one workspace may subscribe. */
export const maxEndpointsPerWorkspace = 20

/** A subscription URL as a client gives it (the SSRF guard judges it next): one line of 1–2048 characters. */
export const WebhookUrl = SafeText.check(Schema.isBetweenLength(1, 2048)).annotate({
  description: "HTTPS URL that receives the events",
  examples: ["https://example.com/webhooks/atrium"]
})

/** Free text for people about an endpoint, up to 500 characters. */
export const WebhookDescription = SafeMultilineText.check(Schema.isMaxLength(500)).annotate({
  description: "Free text for people, up to 500 characters"
})

/** A subscriber's endpoint: where to POST which events. */
export class WebhookEndpoint extends Schema.Class<WebhookEndpoint>("@atrium/domain/WebhookEndpoint")({
  id: WebhookEndpointId,
  workspaceId: WorkspaceId,
  url: Schema.String,
  description: Schema.String,
  /** `None` subscribes to every event type. */
  eventTypes: Schema.OptionFromNullOr(Schema.Array(EventType)),
  enabled: Schema.Boolean,
  disabledReason: Schema.OptionFromNullOr(Schema.String),
  /** Start of the current unbroken run of failed attempts; cleared by any success. */
  failingSince: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {
  /** Whether this endpoint wants events of `type` right now. */
  wants(type: EventType): boolean {
    return this.enabled && Option.match(this.eventTypes, { onNone: () => true, onSome: (types) => types.includes(type) })
  }
}

/** A signing secret of an endpoint, sealed at rest; an old one stays valid until `expiresAt` after a rotation. */
export class EndpointSecret extends Schema.Class<EndpointSecret>("@atrium/domain/EndpointSecret")({
  endpointId: WebhookEndpointId,
  sealed: Schema.String,
  createdAt: Schema.DateTimeUtc,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** Still signs deliveries at `now`. */
  isValidAt(now: DateTime.Utc): boolean {
    return Option.isNone(this.expiresAt) || DateTime.isLessThan(now, this.expiresAt.value)
  }
}
