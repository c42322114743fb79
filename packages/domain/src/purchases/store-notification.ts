import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import { StoreNotificationId, UserId, WorkspaceId, type Unavailable } from "../shared/index.ts"

/** Where an inbox item came from: a store's notification, or a client sync that could not reach the store. */
export const NotificationSource = Schema.Literals(["apple", "google", "client_sync"])
export type NotificationSource = typeof NotificationSource.Type

/** What processing an inbox item did. */
export const NotificationOutcome = Schema.Literals(["applied", "unchanged", "stale", "final", "ignored", "unattributed", "owned_elsewhere", "rejected"])
export type NotificationOutcome = typeof NotificationOutcome.Type

/**
 * A store signal in the inbox: the notice its adapter verified at the door, or a client sync to retry (sealed under the
 * server key: either may carry a purchase token), deduplicated by the store's own id (Apple `notificationUUID`, Pub/Sub
 * `messageId`), processed by the worker.
 */
export class StoreNotification extends Schema.Class<StoreNotification>("@atrium/domain/StoreNotification")({
  id: StoreNotificationId,
  source: NotificationSource,
  /** The store's id for the message; unique per source. */
  externalId: Schema.String,
  sealedBody: Schema.String,
  /** For a client sync: the workspace and member it binds to. */
  workspaceId: Schema.OptionFromNullOr(WorkspaceId),
  userId: Schema.OptionFromNullOr(UserId),
  receivedAt: Schema.DateTimeUtc,
  attempts: Schema.Int,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  processedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  outcome: Schema.OptionFromNullOr(NotificationOutcome)
}) {}

/** Port: the store notification inbox. */
export class NotificationInbox extends Context.Service<NotificationInbox, {
  /** Stores the item unless one with the same source and external id exists; whether it was new. */
  readonly insert: (item: StoreNotification) => Effect.Effect<boolean, Unavailable>
  /** Leases up to `limit` unprocessed items that are due, pushing their next attempt to `leaseUntil`. */
  readonly claimDue: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<StoreNotification>, Unavailable>
  readonly complete: (id: StoreNotificationId, outcome: NotificationOutcome, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
  readonly retryAt: (id: StoreNotificationId, attempts: number, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
  readonly findById: (id: StoreNotificationId) => Effect.Effect<Option.Option<StoreNotification>, Unavailable>
  /** The item with this source and external id, if stored (a repeated client sync finds its first one). */
  readonly findByExternalId: (source: NotificationSource, externalId: string) => Effect.Effect<Option.Option<StoreNotification>, Unavailable>
  /** The latest items, newest first; only those with `outcome`, or only unprocessed ones (`"pending"`), when given. */
  readonly listRecent: (limit: number, only: NotificationOutcome | "pending" | undefined) => Effect.Effect<ReadonlyArray<StoreNotification>, Unavailable>
  /** Queues a processed item again (an operator's replay); whether it exists. */
  readonly requeue: (id: StoreNotificationId, at: DateTime.Utc) => Effect.Effect<boolean, Unavailable>
}>()("@atrium/domain/NotificationInbox") {}
