import { DateTime, Duration, Option, Schema } from "effect"
import { type DesiredGrant } from "../entitlements/index.ts"
import { PurchaseId, UserId, WorkspaceId } from "../shared/index.ts"
import type { StoreProduct } from "./store-product.ts"

/** Looks a product up in the catalog (the `StoreProducts` service is one). */
export interface ProductCatalog {
  readonly find: (store: Store, productId: string) => Option.Option<StoreProduct>
}

/** The store a purchase was made in. */
export const Store = Schema.Literals(["app_store", "play_store"]).annotate({ description: "The store the purchase was made in" })
export type Store = typeof Store.Type

/** The store environment: real money, or a tester's sandbox. */
export const StoreEnvironment = Schema.Literals(["production", "sandbox"]).annotate({ description: "Store environment" })
export type StoreEnvironment = typeof StoreEnvironment.Type

/** What a product is: a renewing subscription, a one-time unlock, or a pack used up (credits). */
export const ProductKind = Schema.Literals(["subscription", "non_consumable", "consumable"]).annotate({ description: "Product kind" })
export type ProductKind = typeof ProductKind.Type

/** The life of a purchase, as the store reports it. */
export const PurchaseStatus = Schema.Literals([
  "pending",
  "active",
  "grace_period",
  "billing_retry",
  "on_hold",
  "paused",
  "canceled",
  "expired",
  "revoked",
  "refunded",
  "replaced"
]).annotate({ description: "Purchase status; `replaced`: superseded by an upgrade or downgrade (its grants moved to the new purchase)" })
export type PurchaseStatus = typeof PurchaseStatus.Type

/** The opaque per-(workspace, member) UUID handed to the store (`appAccountToken`, `obfuscatedExternalAccountId`); never an email. */
export const AppAccountToken = Schema.String.check(Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/))
  .annotate({ description: "Account link UUID to pass to the store", examples: ["3f0c1f7e-8a53-4a57-9d6c-0f6f3a2b9c1d"] })
  .pipe(Schema.brand("AppAccountToken"))
export type AppAccountToken = typeof AppAccountToken.Type

// A replaced purchase (Google `linkedPurchaseToken`) is billed no more: its successor carries the grants from then on.
// A refund or revocation withdraws the transaction it names: only the store's reversal brings that one back, while a
// newer transaction under the same purchase (a resubscription) is a new state and applies.
const withdrawnStatuses: ReadonlySet<PurchaseStatus> = new Set(["refunded", "revoked"])
const finalStatuses: ReadonlySet<PurchaseStatus> = new Set(["refunded", "revoked", "replaced"])
// The statuses in which the buyer keeps access until `expiresAt` (a canceled subscription runs to the end of its period).
const entitlingStatuses: ReadonlySet<PurchaseStatus> = new Set(["active", "grace_period", "canceled"])

/** The status machine: which status may follow which (the store's word decides, within these rules). */
export const canTransition = (from: PurchaseStatus, to: PurchaseStatus): boolean => !finalStatuses.has(from) && (from !== to || from === "pending")

/** What the store says about one purchase at one store time: the normalised content of a notification or a lookup. */
export interface StoreObservation {
  readonly store: Store
  readonly environment: StoreEnvironment
  /** The store's original transaction id (Apple) or the digest of the purchase token (Google). */
  readonly storeRef: string
  readonly productId: string
  readonly status: PurchaseStatus
  readonly autoRenew: boolean
  readonly expiresAt: Option.Option<DateTime.Utc>
  /** When the store produced this state (notification time, signing time, or the time it was read). */
  readonly storeTime: DateTime.Utc
  /** The latest transaction (Apple) or order (Google) id; consumables are credited once per id. */
  readonly transactionId: string
  /** The account link the buyer's app passed to the store, if any. */
  readonly accountToken: Option.Option<string>
  /** Whether the store already holds the purchase settled: acknowledged, or consumed for a consumable (Google); Apple needs none. */
  readonly acknowledged: boolean
  /** The store reversed an earlier refund (Apple `REFUND_REVERSED`): the one way out of `refunded`. */
  readonly refundReversed: boolean
  /** The `storeRef` of the purchase this one supersedes (Google `linkedPurchaseToken`, digested), if any. */
  readonly replaces: Option.Option<string>
}

/** What applying an observation did: `stale` and `final` change nothing, grants included. */
export type PurchaseOutcome = "applied" | "unchanged" | "stale" | "final"

/** The purchase after an observation, and whether it changed. */
export interface PurchaseTransition {
  readonly purchase: Purchase
  readonly outcome: PurchaseOutcome
  readonly from: PurchaseStatus
  readonly to: PurchaseStatus
  /** The product before; the purchase's `productId` is the one the store reports now (upgrade, downgrade, crossgrade). */
  readonly fromProductId: string
  /** Out of `refunded` by the store's own reversal. */
  readonly refundReversed: boolean
}

/** Whether an outcome may change the purchase's grants or credits. */
export const changesGrants = (outcome: PurchaseOutcome): boolean => outcome === "applied" || outcome === "unchanged"

const day = Duration.days(1)

/** An in-app purchase bound to one workspace; the server's copy of the store's truth. */
export class Purchase extends Schema.Class<Purchase>("@atrium/domain/Purchase")({
  id: PurchaseId,
  workspaceId: WorkspaceId,
  /** The member who bought it. */
  userId: UserId,
  store: Store,
  environment: StoreEnvironment,
  productId: Schema.String,
  kind: ProductKind,
  /** Original transaction id (Apple) or purchase token digest (Google); unique per store. */
  storeRef: Schema.String,
  /** The Google purchase token sealed under the server key (needed to re-read and acknowledge); none for Apple. */
  sealedToken: Schema.OptionFromNullOr(Schema.String),
  status: PurchaseStatus,
  autoRenew: Schema.Boolean,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  latestTransactionId: Schema.String,
  /** Store time of the last applied event: anything older is ignored. */
  lastEventAt: Schema.DateTimeUtc,
  lastVerifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  acknowledgedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  /** Failed acknowledgement attempts since the last success, for the retry back-off. */
  ackAttempts: Schema.Int,
  /** When the reconciler looks at it next (past expiry, 24 h unverified, or an acknowledgement due); none when final. */
  nextCheckAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {
  /**
   * Applies what the store says, product included (the store's product after an upgrade, a downgrade at renewal or a
   * crossgrade): older events are ignored, final states hold, the same state is a no-op.
   */
  apply(observation: StoreObservation, now: DateTime.Utc): PurchaseTransition {
    const from = this.status
    const unchanged = { from, to: from, fromProductId: this.productId, refundReversed: false }
    if (DateTime.isLessThan(observation.storeTime, this.lastEventAt)) return { purchase: this, outcome: "stale", ...unchanged }
    const verified = new Purchase({ ...this, lastVerifiedAt: Option.some(now), updatedAt: now })
    const refundReversed = from === "refunded" && observation.refundReversed
    const reopened = refundReversed || (withdrawnStatuses.has(from) && observation.transactionId !== this.latestTransactionId)
    if (finalStatuses.has(from) && !reopened) return { purchase: verified.scheduled(now), outcome: "final", ...unchanged }
    const to = observation.status
    const status = to === "pending" && from !== "pending" ? from : to
    const changed = status !== from || observation.productId !== this.productId || observation.autoRenew !== this.autoRenew ||
      !Option.makeEquivalence(DateTime.Equivalence)(observation.expiresAt, this.expiresAt) ||
      observation.transactionId !== this.latestTransactionId
    const next = new Purchase({
      ...verified,
      environment: observation.environment,
      productId: observation.productId,
      status,
      autoRenew: observation.autoRenew,
      expiresAt: observation.expiresAt,
      latestTransactionId: observation.transactionId,
      lastEventAt: observation.storeTime,
      acknowledgedAt: observation.acknowledged && Option.isNone(this.acknowledgedAt) ? Option.some(now) : this.acknowledgedAt
    }).scheduled(now)
    return { purchase: next, outcome: changed ? "applied" : "unchanged", from, to: next.status, fromProductId: this.productId, refundReversed }
  }

  /** Whether the buyer has access at `now`. */
  entitlesAt(now: DateTime.Utc): boolean {
    if (!entitlingStatuses.has(this.status)) return false
    return Option.isNone(this.expiresAt) || DateTime.isLessThan(now, this.expiresAt.value)
  }

  /**
   * The grants this purchase holds at `now`, from its own (store-reported) product in the catalog; consumables grant
   * credits, not features, and a product the catalog does not list grants nothing.
   */
  grantsAt(catalog: ProductCatalog, now: DateTime.Utc): ReadonlyArray<DesiredGrant> {
    if (this.kind === "consumable" || !this.entitlesAt(now)) return []
    const product = catalog.find(this.store, this.productId)
    if (Option.isNone(product)) return []
    return product.value.features.map((feature) => ({ feature, expiresAt: this.kind === "subscription" ? this.expiresAt : Option.none() }))
  }

  /**
   * Google wants every purchase acknowledged (a consumable consumed) within three days, or it refunds it; only after
   * the grant committed.
   */
  get needsAcknowledgement(): boolean {
    return this.store === "play_store" && Option.isNone(this.acknowledgedAt) && entitlingStatuses.has(this.status)
  }

  /** An acknowledgement that succeeded. */
  acknowledged(now: DateTime.Utc): Purchase {
    return new Purchase({ ...this, acknowledgedAt: Option.some(now), ackAttempts: 0, updatedAt: now }).scheduled(now)
  }

  /** An acknowledgement that failed: try again after a back-off that doubles up to an hour. */
  acknowledgementFailed(now: DateTime.Utc): Purchase {
    const attempts = this.ackAttempts + 1
    const wait = Duration.min(Duration.times(Duration.seconds(30), 2 ** Math.min(attempts - 1, 10)), Duration.hours(1))
    return new Purchase({ ...this, ackAttempts: attempts, nextCheckAt: Option.some(DateTime.addDuration(now, wait)), updatedAt: now })
  }

  /** Superseded by an upgrade or downgrade: final, grants nothing, never looked at again. */
  replacedAt(now: DateTime.Utc): Purchase {
    return new Purchase({ ...this, status: "replaced", autoRenew: false, updatedAt: now }).scheduled(now)
  }

  /** A store lookup that could not be made: look again later, change nothing else. */
  lookupFailed(now: DateTime.Utc): Purchase {
    return new Purchase({ ...this, nextCheckAt: Option.some(DateTime.addDuration(now, Duration.minutes(15))), updatedAt: now })
  }

  /** The same purchase, looked at next at `at` (a reconciler's lease). */
  withNextCheck(at: DateTime.Utc): Purchase {
    return new Purchase({ ...this, nextCheckAt: Option.some(at) })
  }

  /** Sets when the reconciler looks again: now for an acknowledgement, at expiry, or after 24 h unverified; never once final. */
  scheduled(now: DateTime.Utc): Purchase {
    const next = (): Option.Option<DateTime.Utc> => {
      if (finalStatuses.has(this.status) || this.status === "expired") return Option.none()
      if (this.needsAcknowledgement) return Option.some(now)
      if (this.kind === "consumable" && this.status !== "pending") return Option.none()
      const verifiedAt = Option.getOrElse(this.lastVerifiedAt, () => now)
      const stale = DateTime.addDuration(verifiedAt, day)
      if (Option.isSome(this.expiresAt) && DateTime.isLessThan(this.expiresAt.value, stale)) {
        return Option.some(DateTime.max(this.expiresAt.value, now))
      }
      return Option.some(stale)
    }
    return new Purchase({ ...this, nextCheckAt: next() })
  }
}
