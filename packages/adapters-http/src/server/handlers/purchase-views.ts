import type { Purchase, QueuedSync } from "@atrium/domain"
import { DateTime, Option } from "effect"

const iso = (value: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(value, DateTime.formatIso))

/** A purchase on the wire (the store reference and the sealed token stay in the server). */
export const toPurchaseView = (purchase: Purchase) => ({
  id: purchase.id,
  store: purchase.store,
  environment: purchase.environment,
  productId: purchase.productId,
  kind: purchase.kind,
  status: purchase.status,
  autoRenew: purchase.autoRenew,
  expiresAt: iso(purchase.expiresAt),
  lastVerifiedAt: iso(purchase.lastVerifiedAt),
  acknowledgedAt: iso(purchase.acknowledgedAt),
  createdAt: DateTime.formatIso(purchase.createdAt),
  updatedAt: DateTime.formatIso(purchase.updatedAt)
})

/** A queued client sync on the wire. */
export const toPurchaseSyncView = (sync: QueuedSync) => ({
  id: sync.id,
  status: sync.status,
  outcome: Option.getOrNull(sync.outcome),
  nextAttemptAt: iso(sync.nextAttemptAt),
  retryAfterSeconds: sync.retryAfterSeconds
})
