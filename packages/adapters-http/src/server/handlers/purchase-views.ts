import { deriveView, Purchase, purchaseInternals, type QueuedSync } from "@atrium/domain"
import { DateTime, Option } from "effect"
import { PurchaseView } from "@atrium/client"

/** A purchase on the wire: its internals (the store's reference, the sealed token) withheld. */
export const toPurchaseView = deriveView(Purchase, PurchaseView, { withheld: purchaseInternals })

/** A queued client sync on the wire. */
export const toPurchaseSyncView = (sync: QueuedSync) => ({
  id: sync.id,
  status: sync.status,
  outcome: Option.getOrNull(sync.outcome),
  nextAttemptAt: Option.getOrNull(Option.map(sync.nextAttemptAt, DateTime.formatIso)),
  retryAfterSeconds: sync.retryAfterSeconds
})
