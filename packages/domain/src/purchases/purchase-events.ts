import { DateTime, Option, Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { IsoTime } from "../shared/index.ts"
import { ProductKind, type Purchase, PurchaseStatus, Store, StoreEnvironment } from "./purchase.ts"

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

/** The purchase as event payloads carry it (never the store's token or its digest). */
export const purchaseSummary = (purchase: Purchase): typeof PurchaseSummary.Type => ({
  id: purchase.id,
  store: purchase.store,
  environment: purchase.environment,
  productId: purchase.productId,
  kind: purchase.kind,
  status: purchase.status,
  autoRenew: purchase.autoRenew,
  expiresAt: Option.getOrNull(Option.map(purchase.expiresAt, DateTime.formatIso))
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
