import { DateTime, Effect, Option, type Redacted } from "effect"
import { ChangeLog } from "../audit/index.ts"
import { SecretBox, systemActor, Transactor } from "../shared/index.ts"
import type { Purchase } from "./purchase.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import type { StoreReads } from "./store-reads.ts"
import { Stores } from "./stores.ts"

/**
 * Acknowledges (or consumes) a Google purchase after its grant committed: background work, at least once, one effect;
 * a failure is retried by the reconciler with back-off.
 */
export const makeAcknowledgement = (reads: StoreReads) =>
  Effect.gen(function*() {
    const repo = yield* PurchaseRepository
    const stores = yield* Stores
    const box = yield* SecretBox
    const tx = yield* Transactor
    const changes = yield* ChangeLog

    // Settles with Google: consumes a consumable (which acknowledges it), acknowledges anything else.
    const settleWithStore = (purchase: Purchase, token: Redacted.Redacted<string>) =>
      stores.settle(
        purchase.kind === "consumable" ? "consume" : purchase.kind === "subscription" ? "acknowledge_subscription" : "acknowledge_product",
        purchase.productId,
        token
      )

    // Google refuses to settle a purchase twice (400): when it refuses, its own record says whether it is already
    // settled (by an earlier attempt whose answer was lost), so a repeat has no second effect.
    const settledAtStore = Effect.fn("Purchases.settledAtStore")(function*(purchase: Purchase, token: Redacted.Redacted<string>) {
      const observed = yield* reads.readGoogle(purchase, token, purchase.storeRef).pipe(Effect.option)
      return Option.exists(observed, (observation) => observation.acknowledged)
    })

    return Effect.fn("Purchases.acknowledge")(function*(purchase: Purchase) {
      if (!purchase.needsAcknowledgement || Option.isNone(purchase.sealedToken)) return
      const token = yield* box.open(purchase.sealedToken.value)
      const result = yield* settleWithStore(purchase, token).pipe(Effect.result)
      const settled = result._tag === "Success" || (result.failure._tag === "StoreRejected" && (yield* settledAtStore(purchase, token)))
      yield* tx.withTransaction(Effect.gen(function*() {
        const now = yield* DateTime.now
        const { purchase: current } = yield* repo.lockOrInsert(purchase)
        // Another worker got there first: its audit line stands alone.
        if (Option.isSome(current.acknowledgedAt)) return
        if (settled) {
          yield* repo.save(current.acknowledged(now))
          yield* changes.record({
            workspaceId: current.workspaceId,
            actor: systemActor(current.store),
            action: current.kind === "consumable" ? "purchase.consumed" : "purchase.acknowledged",
            target: current.id
          })
        } else {
          yield* repo.save(current.acknowledgementFailed(now))
        }
      }))
    })
  })

/** Acknowledges a purchase with its store once its grant committed. */
export type Acknowledge = Effect.Success<ReturnType<typeof makeAcknowledgement>>
