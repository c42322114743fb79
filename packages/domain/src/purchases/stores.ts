import { Context, type DateTime, type Effect, Option, type Redacted, Schema } from "effect"
import type { InvalidInput, Unavailable } from "../shared/index.ts"
import { type ProductKind, PurchaseStatus, Store, StoreEnvironment, type StoreObservation } from "./purchase.ts"
import type { InvalidSignature, StoreRejected, StoreUnreachable } from "./purchase-errors.ts"

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

/** A store notification as it reached the door: its decoded JSON body and the `Authorization` header, if any. */
export interface StoreDelivery {
  readonly authorization: string
  readonly body: unknown
}

/** What a client's signed proof of purchase (an App Store transaction) names: which purchase to read from the store. */
export interface PurchaseClaim {
  readonly storeRef: string
  readonly transactionId: string
  readonly productId: string
  readonly environment: StoreEnvironment
}

/** Which purchase to read from its store, and as what (its kind picks the store's API). */
export type PurchaseLookup =
  | {
    readonly store: "app_store"
    /** The original transaction id. */
    readonly storeRef: string
    readonly transactionId: string
    readonly environment: StoreEnvironment
    readonly kind: ProductKind
  }
  | {
    readonly store: "play_store"
    /** The token's digest, as the observation names the purchase. */
    readonly storeRef: string
    /** The line item meant when there are several. */
    readonly productId: string
    readonly kind: ProductKind
    /** Google knows a purchase by its token alone. */
    readonly token: Redacted.Redacted<string>
  }

/** A store's current word on a purchase, and the token of the purchase it replaced (Google `linkedPurchaseToken`), if any. */
export interface StoreReading {
  readonly observation: StoreObservation
  readonly replacedToken: Option.Option<Redacted.Redacted<string>>
}

/** How a settled purchase is told to the store: acknowledged, or consumed (which acknowledges a consumable). */
export type Settlement = "acknowledge_subscription" | "acknowledge_product" | "consume"

/**
 * Port: the stores, in the domain's words. Their formats, signatures and APIs sit behind it (App Store and Google Play
 * adapters in `adapters-http/outbound`); what comes out is verified. A store that is not configured is never called.
 */
export class Stores extends Context.Service<Stores, {
  /** Whether this server sells through `store` (its adapter is configured); one that is not is never called. */
  readonly configured: (store: Store) => boolean
  /** Verifies a notification (signature, app, environment) and reads it into a notice, or why not; Google's JWKS down is `Unavailable`. */
  readonly receive: (store: Store, delivery: StoreDelivery) => Effect.Effect<ReceivedNotice, InvalidSignature | InvalidInput | Unavailable>
  /**
   * Reads a notification an earlier version stored in its store's own format (sealed under the server key, so as
   * received): kept until no such inbox row remains, so none in flight at an upgrade is lost.
   */
  readonly storedNotice: (store: Store, body: string, receivedAt: DateTime.Utc) => Effect.Effect<ReceivedNotice, InvalidSignature | InvalidInput>
  /** Verifies a client's signed App Store transaction and says which purchase it names. */
  readonly claim: (signedTransaction: string) => Effect.Effect<PurchaseClaim, InvalidSignature>
  /** Reads a purchase's current state from its store; an answer that cannot be trusted is `StoreUnreachable`. */
  readonly read: (lookup: PurchaseLookup) => Effect.Effect<StoreReading, StoreUnreachable | StoreRejected>
  /** Tells Google a purchase is settled (acknowledged or consumed). */
  readonly settle: (
    settlement: Settlement,
    productId: string,
    token: Redacted.Redacted<string>
  ) => Effect.Effect<void, StoreUnreachable | StoreRejected>
}>()("@atrium/domain/Stores") {}
