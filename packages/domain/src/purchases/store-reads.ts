import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { InvalidInput, SecretBox, SecretHasher } from "../shared/index.ts"
import { AppleRenewal, AppleTransaction, appleEnvironment, appleObservation } from "./apple-payloads.ts"
import { playProductObservation, playSubscriptionObservation } from "./google-payloads.ts"
import type { ProductKind, Purchase, Store, StoreEnvironment } from "./purchase.ts"
import { InvalidSignature, StoreNotConfigured, StoreRejected, StoreUnreachable } from "./purchase-errors.ts"
import type { SyncRequest } from "./purchase-sync.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import { AppStoreApi, PlayStoreApi } from "./store-apis.ts"
import { StoreConfiguration } from "./store-configuration.ts"
import { StoreProducts } from "./store-product.ts"
import { StoreSignatures } from "./store-signatures.ts"

/** Which product a store read is about: its kind picks the API, its id the line item. */
export interface ProductRef {
  readonly productId: string
  readonly kind: ProductKind
}

const decodeUnknown = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => Schema.decodeUnknownEffect(schema)

/**
 * Reading the stores: verified App Store payloads, App Store Server API and Play Developer API reads turned into
 * observations, a client's sync request resolved with the store, a stored purchase re-read. The store's answer decides
 * the product and the state; what the caller holds only says which purchase to read.
 */
export const makeStoreReads = Effect.gen(function*() {
  const repo = yield* PurchaseRepository
  const products = yield* StoreProducts
  const configuration = yield* StoreConfiguration
  const signatures = yield* StoreSignatures
  const appStore = yield* AppStoreApi
  const playStore = yield* PlayStoreApi
  const hasher = yield* SecretHasher
  const box = yield* SecretBox

    const verifiedApple = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, jws: string, at: DateTime.Utc) =>
      signatures.verifyApple(jws, at).pipe(
        Effect.flatMap(decodeUnknown(schema)),
        Effect.mapError((error) => error._tag === "InvalidSignature" ? error : new InvalidSignature({ reason: "unexpected payload" }))
      )

    const appleSettings = Effect.fn("Purchases.appleSettings")(function*() {
      if (Option.isNone(configuration.apple)) return yield* new StoreNotConfigured({ store: "app_store" })
      return configuration.apple.value
    })

    // Bundle and environment are part of what the signature vouches for: a payload for another app or environment is refused.
    const checkApple = Effect.fn("Purchases.checkApple")(function*(bundleId: string, environment: string) {
      const settings = yield* appleSettings().pipe(Effect.mapError(() => new InvalidSignature({ reason: "the App Store is not configured" })))
      if (bundleId !== settings.bundleId) return yield* new InvalidSignature({ reason: "bundle id" })
      const env = appleEnvironment(environment)
      if (Option.isNone(env) || !settings.environments.includes(env.value)) return yield* new InvalidSignature({ reason: "environment" })
      return env.value
    })

    // What the store names decides which API to read and how to read it: the catalog's kind, else the stored purchase's.
    const kindOf = Effect.fn("Purchases.kindOf")(function*(store: Store, productId: string, storeRef: string) {
      const product = products.find(store, productId)
      if (Option.isSome(product)) return Option.some(product.value.kind)
      return Option.map(yield* repo.findByStoreRef(store, storeRef), (purchase) => purchase.kind)
    })

    // A client's product is one this server sells, or that of a purchase it already holds (sold before, upgraded since).
    const knownKind = (store: Store, productId: string, storeRef: string) =>
      kindOf(store, productId, storeRef).pipe(Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new InvalidInput({ detail: `"${productId}" is not a product of this server` })),
        onSome: Effect.succeed
      })))

    // An answer from the App Store API whose signature fails is no answer: try again later, conclude nothing.
    const apiAnswer = <A>(effect: Effect.Effect<A, InvalidSignature | StoreUnreachable | StoreRejected>) =>
      effect.pipe(Effect.catchTag("InvalidSignature", (error) => Effect.fail(new StoreUnreachable({ store: "app_store", reason: `answer ${error.reason}` }))))

    const readApple = Effect.fn("Purchases.readApple")(
      function*(input: { readonly originalTransactionId: string; readonly transactionId: string; readonly environment: StoreEnvironment; readonly kind: ProductKind }) {
        const now = yield* DateTime.now
        if (input.kind === "subscription") {
          const statuses = yield* appStore.subscriptionStatuses(input.transactionId, input.environment)
          const entry = statuses.find((status) => status.originalTransactionId === input.originalTransactionId)
          if (entry === undefined) return yield* new StoreRejected({ store: "app_store", status: 404 })
          const transaction = yield* apiAnswer(verifiedApple(AppleTransaction, entry.signedTransactionInfo, now))
          const renewal = yield* apiAnswer(verifiedApple(AppleRenewal, entry.signedRenewalInfo, now))
          return appleObservation({
            transaction,
            environment: input.environment,
            renewal: Option.some(renewal),
            statusCode: Option.some(entry.status),
            notificationType: Option.none(),
            subtype: Option.none(),
            kind: input.kind,
            storeTime: DateTime.max(DateTime.makeUnsafe(transaction.signedDate), DateTime.makeUnsafe(renewal.signedDate))
          })
        }
        const signed = yield* appStore.transaction(input.transactionId, input.environment)
        const transaction = yield* apiAnswer(verifiedApple(AppleTransaction, signed, now))
        return appleObservation({
          transaction,
          environment: input.environment,
          renewal: Option.none(),
          statusCode: Option.none(),
          notificationType: Option.none(),
          subtype: Option.none(),
          kind: input.kind,
          storeTime: DateTime.makeUnsafe(transaction.signedDate)
        })
      }
    )

    /** Reads a Google purchase; `product` says which API to ask (its kind) and which line item is meant. */
    const readGoogle = Effect.fn("Purchases.readGoogle")(function*(product: ProductRef, token: Redacted.Redacted<string>, storeRef: string) {
      const readAt = yield* DateTime.now
      if (product.kind !== "subscription") {
        const observed = playProductObservation(yield* playStore.product(product.productId, token), { productId: product.productId, kind: product.kind, storeRef, readAt })
        if (Option.isNone(observed)) return yield* new StoreRejected({ store: "play_store", status: 422 })
        return observed.value
      }
      const subscription = yield* playStore.subscription(token)
      const observed = playSubscriptionObservation(subscription, { productId: product.productId, storeRef, readAt })
      if (Option.isNone(observed)) return yield* new StoreRejected({ store: "play_store", status: 422 })
      // The replaced purchase is known here by its token's digest, as it was stored.
      const linked = subscription.linkedPurchaseToken
      const replaces = Option.isSome(linked) ? Option.some(yield* tokenRef(Redacted.make(linked.value))) : Option.none<string>()
      return { ...observed.value, replaces }
    })

    const tokenRef = (token: Redacted.Redacted<string>) => hasher.digest(token)

    /** What the store says about a client's sync request, verified with the store itself. */
    const resolveClient = Effect.fn("Purchases.resolveClient")(function*(request: SyncRequest) {
      if (request.store === "app_store") {
        const transaction = yield* verifiedApple(AppleTransaction, request.signedTransaction, yield* DateTime.now)
        const environment = yield* checkApple(transaction.bundleId, transaction.environment)
        // The client's transaction only says which purchase to read: it may be superseded (an upgrade since), so the
        // store's answer decides the product and the state.
        const kind = yield* knownKind("app_store", transaction.productId, transaction.originalTransactionId)
        const observation = yield* readApple({
          originalTransactionId: transaction.originalTransactionId,
          transactionId: transaction.transactionId,
          environment,
          kind
        })
        return { observation, sealedToken: Option.none<string>() }
      }
      const storeRef = yield* tokenRef(request.purchaseToken)
      const kind = yield* knownKind("play_store", request.productId, storeRef)
      const observation = yield* readGoogle({ productId: request.productId, kind }, request.purchaseToken, storeRef)
      return { observation, sealedToken: Option.some(yield* box.seal(request.purchaseToken)) }
    })

    /** Re-reads a stored purchase from its store. */
    const reread = Effect.fn("Purchases.reread")(function*(purchase: Purchase) {
      if (purchase.store === "app_store") {
        return yield* readApple({
          originalTransactionId: purchase.storeRef,
          transactionId: purchase.latestTransactionId,
          environment: purchase.environment,
          kind: purchase.kind
        })
      }
      if (Option.isNone(purchase.sealedToken)) return yield* new StoreRejected({ store: "play_store", status: 404 })
      return yield* readGoogle(purchase, yield* box.open(purchase.sealedToken.value), purchase.storeRef)
    })

  return { verifiedApple, checkApple, kindOf, readApple, readGoogle, tokenRef, resolveClient, reread }
})
