import { InvalidInput, type PurchaseLookup, type ReceivedNotice, type Settlement, type StoreDelivery, StoreRejected } from "@atrium/domain"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { developerNotificationOf, playProductObservation, playSubscriptionObservation, PubSubPush } from "./google-payloads.ts"
import { GooglePushTokens } from "./google-push-token.ts"
import { PlayDeveloperApi } from "./play-developer-api.ts"

/** Which app this server accepts from Google Play. */
export interface GooglePlaySettings {
  readonly packageName: string
}

const decodePush = Schema.decodeUnknownEffect(PubSubPush)
const decodeStored = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Unknown))

/**
 * Google Play behind the domain's `Stores` port: a Pub/Sub push verified (OIDC token) and read into a notice about a
 * purchase token, the Developer API read for a purchase's current state and told of its settlement.
 */
export const makeGooglePlay = (settings: GooglePlaySettings) =>
  Effect.gen(function*() {
    const tokens = yield* GooglePushTokens
    const api = yield* PlayDeveloperApi

    // A push's Real-time developer notification: only a signal about a token (the purchase is read back), or a voided purchase.
    const noticeOf = Effect.fn("GooglePlay.noticeOf")(function*(body: unknown) {
      const push = yield* decodePush(body).pipe(Effect.mapError(() => new InvalidInput({ detail: "expected a Pub/Sub push" })))
      // Refused here what could not be acted on (a lone surrogate in a token, say): the sender hears it now.
      const notification = yield* developerNotificationOf(push)
      const externalId = push.message.messageId
      const token = notification.subscriptionNotification?.purchaseToken ?? notification.oneTimeProductNotification?.purchaseToken ??
        notification.voidedPurchaseNotification?.purchaseToken
      if (notification.packageName !== settings.packageName || token === undefined) {
        const nothing: ReceivedNotice = { externalId, notice: { _tag: "Nothing" } }
        return nothing
      }
      if (notification.voidedPurchaseNotification !== undefined) {
        const eventTime = Number(notification.eventTimeMillis ?? "")
        const voided: ReceivedNotice = {
          externalId,
          notice: {
            _tag: "Voided",
            store: "play_store",
            purchaseToken: token,
            orderId: Option.fromNullishOr(notification.voidedPurchaseNotification.orderId),
            at: Number.isFinite(eventTime) && eventTime > 0 ? DateTime.make(eventTime) : Option.none()
          }
        }
        return voided
      }
      const changed: ReceivedNotice = {
        externalId,
        notice: {
          _tag: "Changed",
          store: "play_store",
          purchaseToken: token,
          productId: Option.fromNullishOr(notification.subscriptionNotification?.subscriptionId ?? notification.oneTimeProductNotification?.sku)
        }
      }
      return changed
    })

    /** A Pub/Sub push, its token verified once, here. */
    const receive = Effect.fn("GooglePlay.receive")(function*(delivery: StoreDelivery) {
      yield* tokens.verify(delivery.authorization)
      return yield* noticeOf(delivery.body)
    })

    /** A push an earlier version stored as received (its token was checked then; the row is sealed, so authentic). */
    const storedNotice = (body: string) => decodeStored(body).pipe(Effect.mapError(() => new InvalidInput({ detail: "expected a Pub/Sub push" })), Effect.flatMap(noticeOf))

    /** The purchase's current state, read at once (Google gives no event time: the read is the event). */
    const read = Effect.fn("GooglePlay.read")(function*(lookup: Extract<PurchaseLookup, { readonly store: "play_store" }>) {
      const readAt = yield* DateTime.now
      if (lookup.kind !== "subscription") {
        const observed = playProductObservation(yield* api.product(lookup.productId, lookup.token), { ...lookup, readAt })
        if (Option.isNone(observed)) return yield* new StoreRejected({ store: "play_store", status: 422 })
        return { observation: observed.value, replacedToken: Option.none() }
      }
      const subscription = yield* api.subscription(lookup.token)
      const observed = playSubscriptionObservation(subscription, { ...lookup, readAt })
      if (Option.isNone(observed)) return yield* new StoreRejected({ store: "play_store", status: 422 })
      return { observation: observed.value, replacedToken: Option.map(subscription.linkedPurchaseToken, (linked) => Redacted.make(linked)) }
    })

    const settle = (settlement: Settlement, productId: string, token: Redacted.Redacted<string>) =>
      settlement === "consume"
        ? api.consume(productId, token)
        : api.acknowledge(settlement === "acknowledge_subscription" ? "subscription" : "product", productId, token)

    return { receive, storedNotice, read, settle }
  })
