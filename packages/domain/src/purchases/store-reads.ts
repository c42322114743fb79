import { Effect, Option, type Redacted } from "effect"
import { InvalidInput, SecretBox, SecretHasher } from "../shared/index.ts"
import { makeKindOf } from "./apply-observation.ts"
import type { Purchase, Store, StoreObservation } from "./purchase.ts"
import { StoreRejected } from "./purchase-errors.ts"
import type { SyncRequest } from "./purchase-sync.ts"
import { type PurchaseLookup, Stores } from "./stores.ts"

/**
 * Reading the stores: a client's sync request resolved with the store, a stored purchase re-read, in the domain's
 * words. The store's answer decides the product and the state; what the caller holds only says which purchase to read.
 */
export const makeStoreReads = Effect.gen(function*() {
  const stores = yield* Stores
  const hasher = yield* SecretHasher
  const box = yield* SecretBox

  // A Google purchase is known by its token's digest: the token itself is a secret, sealed where it is kept.
  const tokenRef = (token: Redacted.Redacted<string>) => hasher.digest(token)

  // What the store names decides which API to read and how to read it.
  const kindOf = yield* makeKindOf

  // A client's product is one this server sells, or that of a purchase it already holds (sold before, upgraded since).
  const knownKind = (store: Store, productId: string, storeRef: string) =>
    kindOf(store, productId, storeRef).pipe(Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new InvalidInput({ detail: `"${productId}" is not a product of this server` })),
      onSome: Effect.succeed
    })))

  /** The store's current word on a purchase; the purchase it replaced is known here by its token's digest, as stored. */
  const read = Effect.fn("Purchases.read")(function*(lookup: PurchaseLookup) {
    const { observation, replacedToken } = yield* stores.read(lookup)
    if (Option.isNone(replacedToken)) return observation
    const replaced: StoreObservation = { ...observation, replaces: Option.some(yield* tokenRef(replacedToken.value)) }
    return replaced
  })

  /** Reads a Google purchase by its token; `product` says which API to ask (its kind) and which line item is meant. */
  const readGoogle = (product: Pick<Purchase, "productId" | "kind">, token: Redacted.Redacted<string>, storeRef: string) =>
    read({ store: "play_store", storeRef, productId: product.productId, kind: product.kind, token })

  /** What the store says about a client's sync request, verified with the store itself. */
  const resolveClient = Effect.fn("Purchases.resolveClient")(function*(request: SyncRequest) {
    if (request.store === "app_store") {
      // The client's transaction only says which purchase to read: it may be superseded (an upgrade since), so the
      // store's answer decides the product and the state.
      const claim = yield* stores.claim(request.signedTransaction)
      const kind = yield* knownKind("app_store", claim.productId, claim.storeRef)
      const observation = yield* read({ store: "app_store", storeRef: claim.storeRef, transactionId: claim.transactionId, environment: claim.environment, kind })
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
      return yield* read({
        store: "app_store",
        storeRef: purchase.storeRef,
        transactionId: purchase.latestTransactionId,
        environment: purchase.environment,
        kind: purchase.kind
      })
    }
    if (Option.isNone(purchase.sealedToken)) return yield* new StoreRejected({ store: "play_store", status: 404 })
    return yield* readGoogle(purchase, yield* box.open(purchase.sealedToken.value), purchase.storeRef)
  })

  return { tokenRef, readGoogle, resolveClient, reread }
})

/** The store reads, as the use cases share them. */
export type StoreReads = Effect.Success<typeof makeStoreReads>
