import { Purchase, StoreNotification } from "@atrium/domain"
import { Schema } from "effect"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"

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
}).pipe(snakeCaseColumns())

/** The `store_notifications` row as the driver returns it. */
export const StoreNotificationRow = Schema.Struct({
  ...StoreNotification.fields,
  receivedAt: Schema.DateTimeUtcFromDate,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  processedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns())
