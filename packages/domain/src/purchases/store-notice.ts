import { Option, Schema } from "effect"
import { type ProductKind, PurchaseStatus, Store, StoreEnvironment, type StoreObservation } from "./purchase.ts"

/**
 * What a store's signed word says about one purchase, verified, before the product's kind is known: what stands for
 * any product (a refund, a revocation) and what stands if it is a subscription (its renewal state).
 */
export const StoreVerdict = Schema.Struct({
  store: Store,
  environment: StoreEnvironment,
  storeRef: Schema.String,
  productId: Schema.String,
  transactionId: Schema.String,
  storeTime: Schema.DateTimeUtc,
  accountToken: Schema.OptionFromNullOr(Schema.String),
  refundReversed: Schema.Boolean,
  /** Refunded or revoked by the store, whatever the product. */
  withdrawn: Schema.OptionFromNullOr(Schema.Literals(["refunded", "revoked"])),
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  /** The state if the product is a subscription: its status, renewal and end (a grace period's end while in one). */
  subscription: Schema.Struct({ status: PurchaseStatus, autoRenew: Schema.Boolean, expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc) })
})
export type StoreVerdict = typeof StoreVerdict.Type

/** A verdict read for a product of `kind`: a one-time product is active unless withdrawn; a subscription follows its renewal. */
export const observationOf = (verdict: StoreVerdict, kind: ProductKind): StoreObservation => {
  const subscription = kind === "subscription" && Option.isNone(verdict.withdrawn)
  return {
    store: verdict.store,
    environment: verdict.environment,
    storeRef: verdict.storeRef,
    productId: verdict.productId,
    status: Option.getOrElse(verdict.withdrawn, () => kind === "subscription" ? verdict.subscription.status : "active"),
    autoRenew: kind === "subscription" && verdict.subscription.autoRenew,
    expiresAt: subscription ? verdict.subscription.expiresAt : verdict.expiresAt,
    storeTime: verdict.storeTime,
    transactionId: verdict.transactionId,
    accountToken: verdict.accountToken,
    // Only Google settles purchases; a verdict comes from the App Store, which needs none.
    acknowledged: true,
    refundReversed: verdict.refundReversed,
    replaces: Option.none()
  }
}

/**
 * A store's notification, verified once at the door and read into domain terms: the inbox keeps this, never the
 * store's own format. `Observed` carries the purchase's state (App Store); `Changed` only says to read the purchase
 * back (Google Play); `Voided` withdraws it; `Nothing` is a notification with nothing to act on (a test, another app).
 */
export const StoreNotice = Schema.Union([
  Schema.TaggedStruct("Observed", { verdict: StoreVerdict }),
  Schema.TaggedStruct("Changed", { store: Store, purchaseToken: Schema.String, productId: Schema.OptionFromNullOr(Schema.String) }),
  Schema.TaggedStruct("Voided", {
    store: Store,
    purchaseToken: Schema.String,
    orderId: Schema.OptionFromNullOr(Schema.String),
    at: Schema.OptionFromNullOr(Schema.DateTimeUtc)
  }),
  Schema.TaggedStruct("Nothing", {})
])
export type StoreNotice = typeof StoreNotice.Type

/** A notice as the inbox stores it (JSON, sealed: a Google notice carries a purchase token). */
export const StoreNoticeJson = Schema.fromJsonString(Schema.toCodecJson(StoreNotice))

/** A verified notification: the store's id for it (dedupes deliveries) and what it says. */
export interface ReceivedNotice {
  readonly externalId: string
  readonly notice: StoreNotice
}

