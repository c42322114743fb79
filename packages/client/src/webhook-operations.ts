import { DeliveryId, WebhookEndpointId } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema } from "effect/http-api"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { EventList, EventTypeList } from "./event-schemas.ts"
import { PageQuery } from "./page-query.ts"
import { RequiredPermission } from "./security.ts"
import {
  CreateWebhookEndpoint,
  DeliveryStatusQuery,
  RecoveredWebhookDeliveries,
  RecoverWebhookDeliveries,
  RotateWebhookSecret,
  TestWebhookEndpoint,
  UpdateWebhookEndpoint,
  WebhookDeliveryList,
  WebhookDeliveryView,
  WebhookDeliveryWithAttempts,
  WebhookEndpointList,
  WebhookEndpointView,
  WebhookEndpointWithSecret
} from "./webhook-schemas.ts"

/** Where an interface mounts the webhook resources, relative to its group prefix. */
export interface WebhookPaths {
  readonly endpoints: `/${string}`
  readonly deliveries: `/${string}`
  readonly events: `/${string}`
  readonly eventTypes: `/${string}`
}

const endpointId = { id: WebhookEndpointId }
const deliveryId = { id: DeliveryId }
const notFound = [Problems.NotFound, ...serverErrors] as const

/**
 * The webhook operations, mounted at `paths`. Every interface that manages webhooks (`/api/v1` with API keys,
 * `/api/mobile` with sessions) builds its group from these, so operations, payloads and schemas are one definition.
 * Each names its `Permission`: a key needs `read` / `webhooks:write`, a member the admin role.
 */
export const webhookOperations = (paths: WebhookPaths) => [
  HttpApiEndpoint.get("listWebhookEndpoints", paths.endpoints, {
    query: PageQuery,
    success: WebhookEndpointList,
    error: serverErrors
  }).annotate(RequiredPermission, "webhooks.read").annotateMerge(docs(
    "List webhook endpoints",
    "The workspace's endpoints, newest first. Secrets are never listed. Needs `webhooks.read` (scope `read`; role admin)."
  )),
  HttpApiEndpoint.post("createWebhookEndpoint", paths.endpoints, {
    payload: CreateWebhookEndpoint,
    success: WebhookEndpointWithSecret.pipe(HttpApiSchema.status(201)),
    error: [Problems.InvalidInput, Problems.Conflict, ...serverErrors]
  }).annotate(RequiredPermission, "webhooks.write").annotateMerge(docs(
    "Subscribe a webhook endpoint",
    "Answers the endpoint with its `whsec_…` signing secret, shown only here and by rotate-secret. Refuses non-HTTPS, " +
      "private and blocked destinations (400) and a 21st endpoint (409 `conflict`). Needs `webhooks.write` (scope `webhooks:write`; role admin)."
  )),
  HttpApiEndpoint.get("getWebhookEndpoint", `${paths.endpoints}/:id`, {
    params: endpointId,
    success: WebhookEndpointView,
    error: notFound
  }).annotate(RequiredPermission, "webhooks.read").annotateMerge(docs("Read a webhook endpoint", "Without its secret. Needs `webhooks.read` (scope `read`; role admin).")),
  HttpApiEndpoint.patch("updateWebhookEndpoint", `${paths.endpoints}/:id`, {
    params: endpointId,
    payload: UpdateWebhookEndpoint,
    success: WebhookEndpointView,
    error: [Problems.NotFound, Problems.InvalidInput, ...serverErrors]
  }).annotate(RequiredPermission, "webhooks.write").annotateMerge(docs(
    "Change a webhook endpoint",
    "Absent fields stay as they are; `enabled: true` re-enables a disabled endpoint. Needs `webhooks.write` (scope `webhooks:write`; role admin)."
  )),
  HttpApiEndpoint.delete("deleteWebhookEndpoint", `${paths.endpoints}/:id`, {
    params: endpointId,
    error: notFound
  }).annotate(RequiredPermission, "webhooks.write").annotateMerge(docs(
    "Delete a webhook endpoint",
    "Stops all deliveries to it. Needs `webhooks.write` (scope `webhooks:write`; role admin)."
  )),
  HttpApiEndpoint.post("rotateWebhookSecret", `${paths.endpoints}/:id/rotate-secret`, {
    params: endpointId,
    // The body is optional: an empty one (read as null) rotates with the default grace.
    payload: [RotateWebhookSecret, Schema.Null],
    success: WebhookEndpointWithSecret,
    error: [Problems.NotFound, Problems.InvalidInput, ...serverErrors]
  }).annotate(RequiredPermission, "webhooks.write").annotateMerge(docs(
    "Rotate the signing secret",
    "Answers the new secret, shown only here. During the grace period deliveries carry both signatures. " +
      "Needs `webhooks.write` (scope `webhooks:write`; role admin)."
  )),
  HttpApiEndpoint.post("testWebhookEndpoint", `${paths.endpoints}/:id/test`, {
    params: endpointId,
    // The body is optional: none (read as null) sends `webhook.test`.
    payload: [TestWebhookEndpoint, Schema.Null],
    success: WebhookDeliveryView.pipe(HttpApiSchema.status(202)),
    error: [Problems.NotFound, Problems.Conflict, Problems.InvalidInput, ...serverErrors]
  }).annotate(RequiredPermission, "webhooks.write").annotateMerge(docs(
    "Send a test event",
    "Queues a `webhook.test` event — or, with `eventType`, an example event of that type made from its payload " +
      "schema — to this endpoint only and answers its pending delivery. A disabled endpoint is " +
      "409 `conflict`. Needs `webhooks.write` (scope `webhooks:write`; role admin)."
  )),
  HttpApiEndpoint.post("recoverWebhookDeliveries", `${paths.endpoints}/:id/recover`, {
    params: endpointId,
    payload: RecoverWebhookDeliveries,
    success: RecoveredWebhookDeliveries,
    error: [Problems.NotFound, Problems.InvalidInput, ...serverErrors]
  }).annotate(RequiredPermission, "webhooks.write").annotateMerge(docs(
    "Recover failed deliveries",
    "Replays every failed delivery of the endpoint created since `since` (at most 14 days back). " +
      "Needs `webhooks.write` (scope `webhooks:write`; role admin)."
  )),
  HttpApiEndpoint.get("listWebhookDeliveries", `${paths.endpoints}/:id/deliveries`, {
    params: endpointId,
    query: { ...DeliveryStatusQuery, ...PageQuery },
    success: WebhookDeliveryList,
    error: notFound
  }).annotate(RequiredPermission, "webhooks.read").annotateMerge(docs(
    "List an endpoint's deliveries",
    "Newest first, optionally only those with `status`. Needs `webhooks.read` (scope `read`; role admin)."
  )),
  HttpApiEndpoint.get("getWebhookDelivery", `${paths.deliveries}/:id`, {
    params: deliveryId,
    success: WebhookDeliveryWithAttempts,
    error: notFound
  }).annotate(RequiredPermission, "webhooks.read").annotateMerge(docs(
    "Read a delivery and its attempts",
    "Every attempt with its timing, status code, error kind, response headers and the first 4 KiB of the response body. " +
      "Needs `webhooks.read` (scope `read`; role admin)."
  )),
  HttpApiEndpoint.post("replayWebhookDelivery", `${paths.deliveries}/:id/replay`, {
    params: deliveryId,
    success: WebhookDeliveryView.pipe(HttpApiSchema.status(202)),
    error: notFound
  }).annotate(RequiredPermission, "webhooks.write").annotateMerge(docs(
    "Replay a delivery",
    "A new attempt chain for the same event (the same `webhook-id`); answers the new pending delivery. " +
      "Needs `webhooks.write` (scope `webhooks:write`; role admin)."
  )),
  HttpApiEndpoint.get("listEvents", paths.events, {
    query: PageQuery,
    success: EventList,
    error: serverErrors
  }).annotate(RequiredPermission, "webhooks.read").annotateMerge(docs(
    "List the workspace's events",
    "Newest first, in the envelope webhooks carry. Needs `webhooks.read` (scope `read`; role admin)."
  )),
  HttpApiEndpoint.get("listEventTypes", paths.eventTypes, {
    success: EventTypeList,
    error: serverErrors
  }).annotate(RequiredPermission, "webhooks.read").annotateMerge(docs(
    "The event catalog",
    "Every event type with its description and the JSON Schema of its `data`. Needs `webhooks.read` (scope `read`; role admin)."
  ))
] as const
