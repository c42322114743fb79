import { Purchase, StoreNotification } from "@atrium/domain"
import { Schema } from "effect"

/** The `purchases` row as the driver returns it. */
export const PurchaseRow = Schema.Struct({
  ...Purchase.fields,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  lastEventAt: Schema.DateTimeUtcFromDate,
  lastVerifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  acknowledgedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  nextCheckAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
}).pipe(Schema.encodeKeys({
  workspaceId: "workspace_id",
  userId: "user_id",
  productId: "product_id",
  storeRef: "store_ref",
  sealedToken: "sealed_token",
  autoRenew: "auto_renew",
  expiresAt: "expires_at",
  latestTransactionId: "latest_transaction_id",
  lastEventAt: "last_event_at",
  lastVerifiedAt: "last_verified_at",
  acknowledgedAt: "acknowledged_at",
  ackAttempts: "ack_attempts",
  nextCheckAt: "next_check_at",
  createdAt: "created_at",
  updatedAt: "updated_at"
}))

/** The `store_notifications` row as the driver returns it. */
export const StoreNotificationRow = Schema.Struct({
  ...StoreNotification.fields,
  receivedAt: Schema.DateTimeUtcFromDate,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  processedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  externalId: "external_id",
  sealedBody: "sealed_body",
  workspaceId: "workspace_id",
  userId: "user_id",
  receivedAt: "received_at",
  nextAttemptAt: "next_attempt_at",
  processedAt: "processed_at"
}))
