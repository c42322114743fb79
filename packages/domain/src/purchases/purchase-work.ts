import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { Purchases } from "./purchases.ts"

/** The store notification inbox and the purchase reconciler. */
export const purchaseWork: Effect.Effect<ReadonlyArray<Work>, never, Purchases> = Effect.map(Purchases, (purchases) => [
  declareWork(purchases.inboxQueue, { concurrency: 16, idlePoll: "250 millis" }, "store_notifications"),
  declareWork(purchases.reconcileQueue, { concurrency: 16, idlePoll: "1 second" })
])
