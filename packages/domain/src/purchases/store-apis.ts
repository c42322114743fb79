import { Context, type Effect, type Option, type Redacted } from "effect"
import type { StoreEnvironment } from "./purchase.ts"
import type { StoreRejected, StoreUnreachable } from "./purchase-errors.ts"

/** One subscription of an App Store status answer: Apple's status code with its signed transaction and renewal info. */
export interface AppleSubscriptionStatus {
  readonly originalTransactionId: string
  /** 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked. */
  readonly status: number
  readonly signedTransactionInfo: string
  readonly signedRenewalInfo: string
}

/** Port: the App Store Server API (signed answers; the caller verifies them). */
export class AppStoreApi extends Context.Service<AppStoreApi, {
  /** `GET /inApps/v1/transactions/{transactionId}`: the transaction's `signedTransactionInfo`. */
  readonly transaction: (transactionId: string, environment: StoreEnvironment) => Effect.Effect<string, StoreUnreachable | StoreRejected>
  /** `GET /inApps/v1/subscriptions/{transactionId}`: the latest state of every subscription in its group. */
  readonly subscriptionStatuses: (
    transactionId: string,
    environment: StoreEnvironment
  ) => Effect.Effect<ReadonlyArray<AppleSubscriptionStatus>, StoreUnreachable | StoreRejected>
}>()("@atrium/domain/AppStoreApi") {}

/** A Google Play subscription as `purchases.subscriptionsv2.get` answers it (the fields Atrium acts on). */
export interface PlaySubscription {
  /** `SUBSCRIPTION_STATE_ACTIVE`, `…_IN_GRACE_PERIOD`, `…_ON_HOLD`, `…_PAUSED`, `…_CANCELED`, `…_EXPIRED`, `…_PENDING`… */
  readonly subscriptionState: string
  readonly acknowledged: boolean
  readonly latestOrderId: string
  readonly accountToken: Option.Option<string>
  readonly test: boolean
  /** The token of the subscription this one replaced (an upgrade, downgrade or resubscription): that one is over. */
  readonly linkedPurchaseToken: Option.Option<string>
  readonly lineItems: ReadonlyArray<{ readonly productId: string; readonly expiryTime: Option.Option<string>; readonly autoRenewing: boolean }>
}

/** A Google Play one-time product purchase as `purchases.products.get` answers it. */
export interface PlayProductPurchase {
  /** 0 purchased, 1 canceled, 2 pending. */
  readonly purchaseState: number
  readonly acknowledged: boolean
  /** `consumptionState` 1: a consumable used up on the store's side (which also acknowledges it). */
  readonly consumed: boolean
  readonly orderId: string
  readonly accountToken: Option.Option<string>
  readonly test: boolean
}

/** Port: the Google Play Developer API for the configured package. */
export class PlayStoreApi extends Context.Service<PlayStoreApi, {
  readonly subscription: (token: Redacted.Redacted<string>) => Effect.Effect<PlaySubscription, StoreUnreachable | StoreRejected>
  readonly product: (productId: string, token: Redacted.Redacted<string>) => Effect.Effect<PlayProductPurchase, StoreUnreachable | StoreRejected>
  /** Acknowledges a subscription or a one-time product purchase. */
  readonly acknowledge: (
    kind: "subscription" | "product",
    productId: string,
    token: Redacted.Redacted<string>
  ) => Effect.Effect<void, StoreUnreachable | StoreRejected>
  /** `purchases.products.consume`: a consumable used up, so the buyer can buy it again; it acknowledges it too. */
  readonly consume: (productId: string, token: Redacted.Redacted<string>) => Effect.Effect<void, StoreUnreachable | StoreRejected>
}>()("@atrium/domain/PlayStoreApi") {}
