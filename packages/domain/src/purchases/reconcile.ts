import { DateTime, Effect, Option } from "effect"
import { systemActor, Transactor, type WorkQueue } from "../shared/index.ts"
import type { Acknowledge } from "./acknowledgement.ts"
import type { ApplyObservation } from "./apply-observation.ts"
import type { Purchase } from "./purchase.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import type { StoreReads } from "./store-reads.ts"

/** The reconciler's step: a purchase due for an acknowledgement or a re-read (past expiry, a day unverified) looked at. */
export const makeReconciler = (reads: StoreReads, applyObservation: ApplyObservation, acknowledge: Acknowledge) =>
  Effect.gen(function*() {
    const repo = yield* PurchaseRepository
    const tx = yield* Transactor

    const reconcile = Effect.fn("Purchases.reconcile")(function*(purchase: Purchase) {
      if (purchase.needsAcknowledgement) return yield* acknowledge(purchase)
      // The store's current product (after an upgrade, say) comes back with the read; the grants follow it.
      const lookedUp = yield* reads.reread(purchase).pipe(Effect.result)
      if (lookedUp._tag === "Failure") {
        // Never a revocation on a failed lookup: look again later.
        const now = yield* DateTime.now
        return yield* tx.withTransaction(repo.lockOrInsert(purchase).pipe(Effect.flatMap(({ purchase: current }) => repo.save(current.lookupFailed(now)))))
      }
      const applied = yield* applyObservation({
        observation: lookedUp.success,
        sealedToken: Option.none(),
        binding: Option.some({ workspaceId: purchase.workspaceId, userId: purchase.userId }),
        actor: systemActor(purchase.store),
        action: "purchase.reconciled"
      }).pipe(Effect.catchTag("PurchaseOwnedElsewhere", () => Effect.succeed({ _tag: "Unattributed" } as const)))
      if (applied._tag === "Applied" && applied.purchase.needsAcknowledgement) yield* acknowledge(applied.purchase)
    })

    const reconcileQueue: WorkQueue<Purchase> = {
      name: "purchase-reconciler",
      claim: (limit) => DateTime.now.pipe(Effect.flatMap((now) => repo.claimDue(now, limit, DateTime.add(now, { seconds: 60 })))),
      step: (purchase) => reconcile(purchase)
    }

    return { reconcile, reconcileQueue }
  })
