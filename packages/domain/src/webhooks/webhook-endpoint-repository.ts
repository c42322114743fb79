import { Context, type DateTime, type Effect, type Option } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { WebhookEndpointId, WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import type { EndpointSecret, WebhookEndpoint } from "./webhook-endpoint.ts"
import type { EventType } from "./webhook-events.ts"

/** Port: webhook endpoints and their sealed signing secrets, always scoped to a workspace. */
export class WebhookEndpointRepository extends Context.Service<WebhookEndpointRepository, {
  readonly insert: (endpoint: WebhookEndpoint) => Effect.Effect<void, Unavailable>
  /** Replaces the stored row with `endpoint` (same id and workspace). */
  readonly update: (endpoint: WebhookEndpoint) => Effect.Effect<void, Unavailable>
  /** Deletes the endpoint with its secrets and deliveries; `false` when it was not there. */
  readonly delete: (workspaceId: WorkspaceId, id: WebhookEndpointId) => Effect.Effect<boolean, Unavailable>
  readonly findById: (workspaceId: WorkspaceId, id: WebhookEndpointId) => Effect.Effect<Option.Option<WebhookEndpoint>, Unavailable>
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<WebhookEndpoint>, Unavailable>
  readonly count: (workspaceId: WorkspaceId) => Effect.Effect<number, Unavailable>
  /** Enabled endpoints of the workspace subscribed to `type`. */
  readonly listSubscribed: (workspaceId: WorkspaceId, type: EventType) => Effect.Effect<ReadonlyArray<WebhookEndpoint>, Unavailable>
  readonly addSecret: (secret: EndpointSecret) => Effect.Effect<void, Unavailable>
  /** Every secret of the endpoint, newest first (expired ones included; callers filter by time). */
  readonly secrets: (id: WebhookEndpointId) => Effect.Effect<ReadonlyArray<EndpointSecret>, Unavailable>
  /** Sets `expiresAt` on the endpoint's secrets that would outlive it (the grace period of a rotation). */
  readonly expireSecrets: (id: WebhookEndpointId, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/WebhookEndpointRepository") {}
