import { NotificationOutcome, ProductKind, PurchaseId, PurchaseStatus, SafeText, Store, StoreEnvironment, StoreNotificationId } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"
import { EntitlementView } from "./entitlement-view.ts"
import { NextCursor } from "./page-query.ts"

const Time = Schema.String.annotate({ description: "ISO-8601 UTC", examples: ["2026-01-31T12:00:00.000Z"] })

/** A purchase as clients see it (never the store's token or its digest). */
export const PurchaseView = Schema.Struct({
  id: PurchaseId,
  store: Store,
  environment: StoreEnvironment,
  productId: Schema.String,
  kind: ProductKind,
  status: PurchaseStatus,
  autoRenew: Schema.Boolean,
  expiresAt: Schema.NullOr(Time),
  lastVerifiedAt: Schema.NullOr(Time),
  acknowledgedAt: Schema.NullOr(Time),
  createdAt: Time,
  updatedAt: Time
}).annotate({ identifier: "Purchase", description: "An in-app purchase bound to the workspace" })

/** A page of purchases, newest first. */
export const PurchaseList = Schema.Struct({ data: Schema.Array(PurchaseView), nextCursor: NextCursor }).annotate({ identifier: "PurchaseList" })

/** `?platform=` of the availability check. */
export const AvailabilityQuery = {
  platform: SafeText.check(Schema.isBetweenLength(1, 20)).annotate({ description: "`ios` or `android`", examples: ["ios"] })
}

/** Whether the member can buy on this platform, the account link to pass to the store, and the products. */
export const AvailabilityView = Schema.Struct({
  available: Schema.Boolean,
  reason: Schema.NullOr(Schema.Literals(["platform_not_supported", "store_not_configured", "role_forbidden", "managed_elsewhere"])),
  appAccountToken: Schema.NullOr(Schema.String).annotate({
    description: "Pass as `appAccountToken` (Apple) or `obfuscatedExternalAccountId` (Google); one per workspace and member"
  }),
  products: Schema.Array(Schema.Struct({
    productId: Schema.String,
    kind: ProductKind,
    features: Schema.Array(Schema.String),
    credits: Schema.Int,
    owned: Schema.Boolean
  }))
}).annotate({ identifier: "PurchaseAvailability" })

/** `POST /api/mobile/purchases/sync`: Apple's signed transaction, or Google's purchase token and product id. */
export const SyncPayload = Schema.Union([
  Schema.Struct({ store: Schema.Literal("app_store"), signedTransaction: SafeText.check(Schema.isBetweenLength(1, 100_000)) }),
  Schema.Struct({
    store: Schema.Literal("play_store"),
    purchaseToken: SafeText.check(Schema.isBetweenLength(1, 4096)),
    productId: SafeText.check(Schema.isBetweenLength(1, 200))
  })
]).annotate({ identifier: "PurchaseSync" })

/** 200: the synced purchase and the workspace's entitlements after it. */
export const SyncedView = Schema.Struct({
  purchases: Schema.Array(PurchaseView),
  entitlement: Schema.Struct({ entitlements: Schema.Array(EntitlementView) })
}).annotate({ identifier: "PurchaseSynced" })

/** 202: the store could not be reached; the sync is queued and retried, nothing was revoked. */
export const SyncPending = Schema.Struct({
  status: Schema.Literal("pending"),
  syncId: StoreNotificationId.annotate({ description: "Follow it at `GET /api/mobile/purchases/syncs/{syncId}`" }),
  retryAfterSeconds: Schema.Int.annotate({ description: "When the queued sync is next tried (also the `Retry-After` header)" })
}).pipe(HttpApiSchema.status(202)).annotate({
  identifier: "PurchaseSyncPending"
})

/** A queued client sync: `pending` until the worker processed it, then what it did. */
export const PurchaseSyncView = Schema.Struct({
  id: StoreNotificationId,
  status: Schema.Literals(["pending", "processed"]),
  outcome: Schema.NullOr(NotificationOutcome).annotate({
    description: "Once processed: `applied` or `unchanged` (the purchase list and entitlement show the result), `rejected`, `owned_elsewhere`…"
  }),
  nextAttemptAt: Schema.NullOr(Time),
  retryAfterSeconds: Schema.Int.annotate({ description: "When it is worth asking again (also the `Retry-After` header while pending)" })
}).annotate({ identifier: "PurchaseSyncStatus" })

/** Apple's notification body. */
export const AppleNotificationBody = Schema.Struct({ signedPayload: SafeText.check(Schema.isBetweenLength(1, 200_000)) })

/** A Pub/Sub push body (extra fields pass: Pub/Sub adds its own). */
export const GooglePushBody = Schema.Struct({
  message: Schema.Struct({ data: SafeText, messageId: SafeText, publishTime: Schema.optional(SafeText) }),
  subscription: Schema.optional(SafeText)
})
