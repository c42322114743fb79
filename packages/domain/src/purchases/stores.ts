import { Context, type DateTime, type Effect, type Option, type Redacted } from "effect"
import type { InvalidInput, Unavailable } from "../shared/index.ts"
import type { ProductKind, Store, StoreEnvironment, StoreObservation } from "./purchase.ts"
import type { InvalidSignature, StoreRejected, StoreUnreachable } from "./purchase-errors.ts"
import type { ReceivedNotice } from "./store-notice.ts"

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
