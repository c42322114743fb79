import { InvalidInput, type ProductKind, type PurchaseStatus, type StoreObservation } from "@atrium/domain"
import { DateTime, Effect, Option, Schema } from "effect"
import { StoreText } from "../store-text.ts"
import type { PlayProductPurchase, PlaySubscription } from "./play-developer-api.ts"

/** A Pub/Sub push request body. */
export const PubSubPush = Schema.Struct({
  message: Schema.Struct({
    data: StoreText,
    messageId: StoreText.check(Schema.isBetweenLength(1, 200)),
    publishTime: Schema.optional(StoreText)
  }),
  subscription: Schema.optional(StoreText)
})

/** A Real-time developer notification, the `data` of the push. */
export const DeveloperNotification = Schema.Struct({
  packageName: StoreText,
  eventTimeMillis: Schema.optional(StoreText),
  subscriptionNotification: Schema.optional(Schema.Struct({ purchaseToken: StoreText, subscriptionId: StoreText })),
  oneTimeProductNotification: Schema.optional(Schema.Struct({ purchaseToken: StoreText, sku: StoreText })),
  voidedPurchaseNotification: Schema.optional(Schema.Struct({ purchaseToken: StoreText, orderId: Schema.optional(StoreText) }))
})
export type DeveloperNotification = typeof DeveloperNotification.Type

const decodeNotification = Schema.decodeUnknownEffect(Schema.fromJsonString(DeveloperNotification))

/** The developer notification a push carries: base64 of UTF-8 JSON, every string well-formed, else `InvalidInput`. */
export const developerNotificationOf = (push: typeof PubSubPush.Type): Effect.Effect<DeveloperNotification, InvalidInput> =>
  Effect.try({
    try: () => new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(push.message.data), (c) => c.charCodeAt(0))),
    catch: () => new InvalidInput({ detail: "message.data is not base64 of UTF-8 text" })
  }).pipe(
    Effect.flatMap((text) => decodeNotification(text).pipe(Effect.mapError(() => new InvalidInput({ detail: "message.data is not a developer notification" }))))
  )

const subscriptionStates: Record<string, PurchaseStatus> = {
  SUBSCRIPTION_STATE_PENDING: "pending",
  SUBSCRIPTION_STATE_ACTIVE: "active",
  SUBSCRIPTION_STATE_IN_GRACE_PERIOD: "grace_period",
  SUBSCRIPTION_STATE_ON_HOLD: "on_hold",
  SUBSCRIPTION_STATE_PAUSED: "paused",
  SUBSCRIPTION_STATE_CANCELED: "canceled",
  SUBSCRIPTION_STATE_EXPIRED: "expired",
  SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED: "expired"
}

/** What `purchases.subscriptionsv2.get` says, read at `readAt` (Google gives no event time: the read is the event). */
export const playSubscriptionObservation = (
  subscription: PlaySubscription,
  input: { readonly productId: string; readonly storeRef: string; readonly readAt: DateTime.Utc }
): Option.Option<StoreObservation> => {
  const status = subscriptionStates[subscription.subscriptionState]
  // The store's line item decides the product (the client's id may be an older one); the one asked for when there are several.
  const item = subscription.lineItems.find((line) => line.productId === input.productId) ?? subscription.lineItems[0]
  if (status === undefined || item === undefined) return Option.none()
  return Option.some({
    store: "play_store",
    environment: subscription.test ? "sandbox" : "production",
    storeRef: input.storeRef,
    productId: item.productId,
    status,
    autoRenew: item.autoRenewing,
    expiresAt: Option.flatMap(item.expiryTime, (time) => DateTime.make(time)),
    storeTime: input.readAt,
    transactionId: subscription.latestOrderId,
    accountToken: subscription.accountToken,
    acknowledged: subscription.acknowledged,
    refundReversed: false,
    replaces: Option.none()
  })
}

/** What `purchases.products.get` says about a one-time purchase; a consumable is settled once consumed, not merely acknowledged. */
export const playProductObservation = (
  purchase: PlayProductPurchase,
  input: { readonly productId: string; readonly kind: ProductKind; readonly storeRef: string; readonly readAt: DateTime.Utc }
): Option.Option<StoreObservation> => {
  const status: PurchaseStatus | undefined = purchase.purchaseState === 0 ? "active" : purchase.purchaseState === 1 ? "refunded" : purchase.purchaseState === 2 ? "pending" : undefined
  if (status === undefined) return Option.none()
  return Option.some({
    store: "play_store",
    environment: purchase.test ? "sandbox" : "production",
    storeRef: input.storeRef,
    productId: input.productId,
    status,
    autoRenew: false,
    expiresAt: Option.none(),
    storeTime: input.readAt,
    transactionId: purchase.orderId,
    accountToken: purchase.accountToken,
    acknowledged: input.kind === "consumable" ? purchase.consumed : purchase.acknowledged,
    refundReversed: false,
    replaces: Option.none()
  })
}
