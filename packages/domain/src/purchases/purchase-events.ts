import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { deriveView, IsoTime } from "../shared/index.ts"
import { ProductKind, Purchase, PurchaseStatus, Store, StoreEnvironment } from "./purchase.ts"

const PurchaseSummary = Schema.Struct({
  id: Schema.String,
  store: Store,
  environment: StoreEnvironment,
  productId: Schema.String,
  kind: ProductKind,
  status: PurchaseStatus,
  autoRenew: Schema.Boolean,
  expiresAt: Schema.NullOr(IsoTime)
})

/** What no view of a purchase shows: its workspace and buyer (the caller's), the store's reference and sealed token, the reconciler's state. */
export const purchaseInternals = [
  "workspaceId",
  "userId",
  "storeRef",
  "sealedToken",
  "latestTransactionId",
  "lastEventAt",
  "ackAttempts",
  "nextCheckAt"
] as const

/** The purchase as event payloads carry it: its internals and its bookkeeping times withheld. */
export const purchaseSummary = deriveView(Purchase, PurchaseSummary, {
  withheld: [...purchaseInternals, "lastVerifiedAt", "acknowledgedAt", "createdAt", "updatedAt"]
})

/** Events of the purchases area. */
export const PurchaseEvents = {
  created: defineEvent("purchase.created", "A store purchase was bound to the workspace.", Schema.Struct({ purchase: PurchaseSummary })),
  statusChanged: defineEvent(
    "purchase.status_changed",
    "A purchase changed status as the store reported it (renewal trouble, cancellation, expiry…).",
    Schema.Struct({ purchase: PurchaseSummary, from: PurchaseStatus, to: PurchaseStatus })
  ),
  productChanged: defineEvent(
    "purchase.product_changed",
    "A purchase moved to the product the store reports (an upgrade, a downgrade at renewal, a crossgrade); its grants follow it.",
    Schema.Struct({ purchase: PurchaseSummary, fromProductId: Schema.String, toProductId: Schema.String })
  ),
  refunded: defineEvent("purchase.refunded", "A purchase was refunded; its grants ended.", Schema.Struct({ purchase: PurchaseSummary }))
}
