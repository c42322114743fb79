import { Context, type DateTime, type Effect, type Option } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { DeliveryId, WebhookEndpointId, WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import type { DeliveryAttempt, DeliveryStatus, WebhookDelivery } from "./webhook-delivery.ts"
import type { EndpointSecret, WebhookEndpoint } from "./webhook-endpoint.ts"
import type { DomainEvent } from "../audit/index.ts"

/** A due delivery claimed by one worker, with everything needed to send it. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDelivery
  readonly event: DomainEvent
  readonly endpoint: WebhookEndpoint
  readonly secrets: ReadonlyArray<EndpointSecret>
}

/** One attempt and the state its delivery is left in. */
export interface AttemptRecord {
  readonly attempt: DeliveryAttempt
  readonly delivery: WebhookDelivery
}

/** Port: deliveries and their attempts; the queue the delivery workers share. */
export class DeliveryRepository extends Context.Service<DeliveryRepository, {
  readonly insertMany: (deliveries: ReadonlyArray<WebhookDelivery>) => Effect.Effect<void, Unavailable>
  readonly findById: (workspaceId: WorkspaceId, id: DeliveryId) => Effect.Effect<Option.Option<WebhookDelivery>, Unavailable>
  readonly listByEndpoint: (
    workspaceId: WorkspaceId,
    endpointId: WebhookEndpointId,
    status: DeliveryStatus | undefined,
    page: PageRequest
  ) => Effect.Effect<Page<WebhookDelivery>, Unavailable>
  /** Attempts of a delivery, first to last. */
  readonly attempts: (id: DeliveryId) => Effect.Effect<ReadonlyArray<DeliveryAttempt>, Unavailable>
  /**
   * Claims up to `limit` pending deliveries due at `now` and leases them until `leaseUntil`: another worker (or this
   * one after a crash) sees them again only when the lease runs out, so nothing is lost and nothing is sent twice at once.
   */
  readonly claimDue: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, Unavailable>
  /** Stores an attempt and the delivery's new state together. */
  readonly recordAttempt: (attempt: DeliveryAttempt, delivery: WebhookDelivery) => Effect.Effect<void, Unavailable>
  /**
   * Stores many attempts with their deliveries' new state in one step (one statement in Postgres). Each attempt is
   * stored once however often it is written (by id), and moves its delivery only from the state it was judged on
   * (`attemptCount` one lower), so a stale worker whose lease ran out never moves a delivery twice. Of the endpoints
   * whose deliveries moved: one with a success ends its failing streak (`failingSince`); one with only failures starts
   * one at its earliest failed attempt unless it is already failing.
   */
  readonly recordAttempts: (records: ReadonlyArray<AttemptRecord>) => Effect.Effect<void, Unavailable>
  /** Failed deliveries of an endpoint created at or after `since`, for recovery. */
  readonly failedSince: (workspaceId: WorkspaceId, endpointId: WebhookEndpointId, since: DateTime.Utc) => Effect.Effect<ReadonlyArray<WebhookDelivery>, Unavailable>
  /** Marks every pending delivery of a disabled endpoint failed. */
  readonly failPending: (endpointId: WebhookEndpointId, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/DeliveryRepository") {}
