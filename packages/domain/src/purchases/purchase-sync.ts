import { DateTime, Duration, Option, type Redacted, Schema } from "effect"
import type { Entitlement } from "../entitlements/index.ts"
import type { StoreNotificationId } from "../shared/index.ts"
import type { Purchase } from "./purchase.ts"
import type { NotificationOutcome, StoreNotification } from "./store-notification.ts"

/** What the app sends to sync a purchase: Apple's signed transaction, or Google's purchase token and product. */
export type SyncRequest =
  | { readonly store: "app_store"; readonly signedTransaction: string }
  | { readonly store: "play_store"; readonly purchaseToken: Redacted.Redacted<string>; readonly productId: string }

/** A sync's answer: the purchase and the workspace's grants after it, or `pending` when the store could not be reached. */
export type SyncResult =
  | { readonly status: "synced"; readonly purchases: ReadonlyArray<Purchase>; readonly entitlements: ReadonlyArray<Entitlement> }
  | { readonly status: "pending"; readonly sync: QueuedSync }

/** A client sync queued because the store could not be reached, to follow by its id. */
export interface QueuedSync {
  readonly id: StoreNotificationId
  /** `pending` until the worker has processed it; `outcome` then says what it did. */
  readonly status: "pending" | "processed"
  readonly outcome: Option.Option<NotificationOutcome>
  readonly nextAttemptAt: Option.Option<DateTime.Utc>
  /** When it is worth asking again: whole seconds until the next attempt (at least 1). */
  readonly retryAfterSeconds: number
}

export const queuedSyncOf = (item: StoreNotification, now: DateTime.Utc): QueuedSync => ({
  id: item.id,
  status: Option.isSome(item.processedAt) ? "processed" : "pending",
  outcome: item.outcome,
  nextAttemptAt: item.nextAttemptAt,
  retryAfterSeconds: Option.match(item.nextAttemptAt, {
    onNone: () => 1,
    onSome: (at) => Math.max(1, Math.ceil((DateTime.toEpochMillis(at) - DateTime.toEpochMillis(now)) / 1000))
  })
})

/** A sync queued in the inbox, as its body is stored (the worker resolves it with the store later). */
export const ClientSyncBody = Schema.Union([
  Schema.Struct({ store: Schema.Literal("app_store"), signedTransaction: Schema.String }),
  Schema.Struct({ store: Schema.Literal("play_store"), purchaseToken: Schema.String, productId: Schema.String })
])

/**
 * How long a member's sync waits for the store, every call of the verification together (the clients' own 15 s
 * per-call bound serves the worker). Past it the sync is queued and answers 202 pending: the answer comes within 5 s.
 */
export const syncVerificationBudget = Duration.seconds(4)
