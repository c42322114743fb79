import { HttpApiGroup, OpenApi } from "effect/http-api"
import { memberRoutes, v1Routes } from "./front-door.ts"
import { type WebhookPaths, webhookOperations } from "./webhook-operations.ts"

/** The `/api/v1` paths of the webhook operations. */
export const v1WebhookPaths: WebhookPaths = {
  endpoints: "/webhook-endpoints",
  deliveries: "/webhook-deliveries",
  events: "/events",
  eventTypes: "/event-types"
}

/** The `/api/mobile` paths of the webhook operations. */
export const mobileWebhookPaths: WebhookPaths = {
  endpoints: "/webhooks",
  deliveries: "/webhooks/deliveries",
  events: "/webhooks/events",
  eventTypes: "/webhooks/event-types"
}

/** Webhook endpoints, deliveries and events of `/api/v1`, behind API keys. */
export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(...webhookOperations(v1WebhookPaths))
  .pipe(v1Routes(["api_key"]))
  .annotateMerge(OpenApi.annotations({
    title: "webhooks",
    description: "Subscribe endpoints to events, inspect and replay deliveries. Deliveries follow Standard Webhooks."
  }))
{}

/** The very operations and schemas of `/api/v1` webhooks, behind member sessions (admins and owners). */
export class MobileWebhooksGroup extends HttpApiGroup.make("mobileWebhooks")
  .add(...webhookOperations(mobileWebhookPaths))
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({
    title: "mobile: webhooks",
    description: "The same operations and payloads as `/api/v1/webhook-endpoints…`, for admins and owners."
  }))
{}
