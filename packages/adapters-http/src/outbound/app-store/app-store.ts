import {
  InvalidInput,
  InvalidSignature,
  observationOf,
  type PurchaseLookup,
  type ReceivedNotice,
  type StoreDelivery,
  type StoreEnvironment,
  StoreRejected,
  StoreUnreachable
} from "@atrium/domain"
import { DateTime, Effect, Option, Schema } from "effect"
import { AppleNotification, AppleRenewal, AppleTransaction, appleEnvironment, appleVerdict, SignedPayloadBody } from "./apple-payloads.ts"
import { AppleSignatures } from "./apple-jws.ts"
import { AppStoreServerApi } from "./app-store-server-api.ts"

/** Which app and environments this server accepts from the App Store. */
export interface AppStoreSettings {
  readonly bundleId: string
  /** Environments whose transactions and notifications are accepted (production only unless configured). */
  readonly environments: ReadonlyArray<StoreEnvironment>
}

const decodeUnknown = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => Schema.decodeUnknownEffect(schema)

// A time Apple signed; one no date can hold is no payload of Apple's.
const timeOf = (millis: number) =>
  Option.match(DateTime.make(millis), { onNone: () => Effect.fail(new InvalidSignature({ reason: "unexpected payload" })), onSome: Effect.succeed })

/**
 * The App Store behind the domain's `Stores` port: notifications and client transactions verified (signature chain,
 * bundle, environment) and read into verdicts, the Server API read for a purchase's current state.
 */
export const makeAppStore = (settings: AppStoreSettings) =>
  Effect.gen(function*() {
    const signatures = yield* AppleSignatures
    const api = yield* AppStoreServerApi

    const verified = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, jws: string, at: DateTime.Utc) =>
      signatures.verify(jws, at).pipe(
        Effect.flatMap(decodeUnknown(schema)),
        Effect.mapError((error) => error._tag === "InvalidSignature" ? error : new InvalidSignature({ reason: "unexpected payload" }))
      )

    // Bundle and environment are part of what the signature vouches for: a payload for another app or environment is refused.
    const checked = Effect.fn("AppStore.checked")(function*(bundleId: string, environment: string) {
      if (bundleId !== settings.bundleId) return yield* new InvalidSignature({ reason: "bundle id" })
      const env = appleEnvironment(environment)
      if (Option.isNone(env) || !settings.environments.includes(env.value)) return yield* new InvalidSignature({ reason: "environment" })
      return env.value
    })

    // A notification's signed payload, verified at `at` with the transaction and renewal it carries, read into a notice.
    const noticeOf = Effect.fn("AppStore.noticeOf")(function*(signedPayload: string, at: DateTime.Utc) {
      const notification = yield* verified(AppleNotification, signedPayload, at)
      const nothing: ReceivedNotice = { externalId: notification.notificationUUID, notice: { _tag: "Nothing" } }
      const data = notification.data
      if (data === undefined) return nothing
      const environment = yield* checked(data.bundleId, data.environment)
      if (data.signedTransactionInfo === undefined) return nothing
      const transaction = yield* verified(AppleTransaction, data.signedTransactionInfo, at)
      const renewal = data.signedRenewalInfo === undefined ? Option.none() : Option.some(yield* verified(AppleRenewal, data.signedRenewalInfo, at))
      const verdict = appleVerdict({
        transaction,
        environment,
        renewal,
        statusCode: Option.fromNullishOr(data.status),
        notificationType: Option.some(notification.notificationType),
        subtype: Option.fromNullishOr(notification.subtype),
        storeTime: yield* timeOf(notification.signedDate)
      })
      const received: ReceivedNotice = { externalId: notification.notificationUUID, notice: { _tag: "Observed", verdict } }
      return received
    })

    /** An App Store Server Notification V2, verified once, here. */
    const receive = Effect.fn("AppStore.receive")(function*(delivery: StoreDelivery) {
      const { signedPayload } = yield* decodeUnknown(SignedPayloadBody)(delivery.body).pipe(
        Effect.mapError(() => new InvalidInput({ detail: "expected { signedPayload }" }))
      )
      return yield* noticeOf(signedPayload, yield* DateTime.now)
    })

    /** A notification an earlier version stored as its signed payload: verified as it was then, at its arrival. */
    const storedNotice = (signedPayload: string, receivedAt: DateTime.Utc) => noticeOf(signedPayload, receivedAt)

    /** A client's signed transaction: which purchase it names (the store's answer then decides its state). */
    const claim = Effect.fn("AppStore.claim")(function*(signedTransaction: string) {
      const transaction = yield* verified(AppleTransaction, signedTransaction, yield* DateTime.now)
      const environment = yield* checked(transaction.bundleId, transaction.environment)
      return { storeRef: transaction.originalTransactionId, transactionId: transaction.transactionId, productId: transaction.productId, environment }
    })

    // An answer from the App Store API whose signature fails is no answer: try again later, conclude nothing.
    const apiAnswer = <A>(effect: Effect.Effect<A, InvalidSignature | StoreUnreachable | StoreRejected>) =>
      effect.pipe(Effect.catchTag("InvalidSignature", (error) => Effect.fail(new StoreUnreachable({ store: "app_store", reason: `answer ${error.reason}` }))))

    /** The purchase's current state from the Server API: a subscription's status, else its transaction. */
    const read = Effect.fn("AppStore.read")(function*(lookup: Extract<PurchaseLookup, { readonly store: "app_store" }>) {
      const now = yield* DateTime.now
      if (lookup.kind === "subscription") {
        const statuses = yield* api.subscriptionStatuses(lookup.transactionId, lookup.environment)
        const entry = statuses.find((status) => status.originalTransactionId === lookup.storeRef)
        if (entry === undefined) return yield* new StoreRejected({ store: "app_store", status: 404 })
        const transaction = yield* apiAnswer(verified(AppleTransaction, entry.signedTransactionInfo, now))
        const renewal = yield* apiAnswer(verified(AppleRenewal, entry.signedRenewalInfo, now))
        const verdict = appleVerdict({
          transaction,
          environment: lookup.environment,
          renewal: Option.some(renewal),
          statusCode: Option.some(entry.status),
          notificationType: Option.none(),
          subtype: Option.none(),
          storeTime: DateTime.max(yield* apiAnswer(timeOf(transaction.signedDate)), yield* apiAnswer(timeOf(renewal.signedDate)))
        })
        return { observation: observationOf(verdict, lookup.kind), replacedToken: Option.none() }
      }
      const signed = yield* api.transaction(lookup.transactionId, lookup.environment)
      const transaction = yield* apiAnswer(verified(AppleTransaction, signed, now))
      const verdict = appleVerdict({
        transaction,
        environment: lookup.environment,
        renewal: Option.none(),
        statusCode: Option.none(),
        notificationType: Option.none(),
        subtype: Option.none(),
        storeTime: yield* apiAnswer(timeOf(transaction.signedDate))
      })
      return { observation: observationOf(verdict, lookup.kind), replacedToken: Option.none() }
    })

    return { receive, storedNotice, claim, read }
  })
