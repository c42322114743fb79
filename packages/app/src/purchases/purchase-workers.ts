import { Purchases, runWorker } from "@atrium/domain"
import { Effect, Layer } from "effect"

/** The store notification inbox and the purchase reconciler, on the common worker loop (leases shared by every process). */
export const PurchaseWorkers = {
  layer: Layer.effectDiscard(Effect.gen(function*() {
    const purchases = yield* Purchases
    yield* runWorker(purchases.inboxQueue, { concurrency: 16, idlePoll: "250 millis" })
    yield* runWorker(purchases.reconcileQueue, { concurrency: 16, idlePoll: "1 second" })
  }))
}
