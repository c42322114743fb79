import { DateTime, Effect, Option } from "effect"
import { ChangeLog, emit } from "../audit/index.ts"
import { Usage } from "../billing/index.ts"
import { Entitlements } from "../entitlements/index.ts"
import { type Actor, IdGenerator, PurchaseId, Transactor, type UserId, type WorkspaceId } from "../shared/index.ts"
import { canTransition, changesGrants, type ProductKind, Purchase, type PurchaseTransition, type Store, type StoreObservation } from "./purchase.ts"
import { PurchaseOwnedElsewhere } from "./purchase-errors.ts"
import { PurchaseEvents, purchaseSummary } from "./purchase-events.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import type { NotificationOutcome } from "./store-notification.ts"
import { creditsOf, StoreProducts } from "./store-product.ts"

/** The result of applying an observation. */
export type Applied =
  | { readonly _tag: "Applied"; readonly purchase: Purchase; readonly transition: PurchaseTransition }
  | { readonly _tag: "Unattributed" }
  | { readonly _tag: "Ignored" }

/** What an inbox item records for an application. */
export const outcomeOf = (applied: Applied): NotificationOutcome =>
  applied._tag === "Applied" ? applied.transition.outcome : applied._tag === "Ignored" ? "ignored" : "unattributed"

/** What is applied, for whom, by whom, under which audit action. */
export interface Application {
  readonly observation: StoreObservation
  readonly sealedToken: Option.Option<string>
  readonly binding: Option.Option<{ readonly workspaceId: WorkspaceId; readonly userId: UserId }>
  readonly actor: Actor
  readonly action: string
}

const epoch = DateTime.makeUnsafe(0)

// What the store names is read and applied as the catalog's kind, else as the purchase already held (sold before, upgraded since).
const kindFrom = (catalog: StoreProducts["Service"], store: Store, productId: string, stored: Option.Option<Purchase>): Option.Option<ProductKind> =>
  Option.orElse(Option.map(catalog.find(store, productId), (product) => product.kind), () => Option.map(stored, (purchase) => purchase.kind))

/** The kind of what the store names: the catalog's, else the stored purchase's; none for a product this server never sold. */
export const makeKindOf = Effect.gen(function*() {
  const repo = yield* PurchaseRepository
  const products = yield* StoreProducts
  return Effect.fn("Purchases.kindOf")(function*(store: Store, productId: string, storeRef: string) {
    const product = products.find(store, productId)
    if (Option.isSome(product)) return Option.some(product.value.kind)
    return kindFrom(products, store, productId, yield* repo.findByStoreRef(store, storeRef))
  })
})

// A successor that never took effect (its payment canceled, say) leaves the purchase it would have replaced alone.
const entitlingOrPending = (purchase: Purchase) => purchase.status === "pending" || purchase.entitlesAt(purchase.updatedAt)

/**
 * Applying what the store says, every use case's last step: the purchase upserted, the observation applied (status and
 * product, as the store reports them), its grants and credits recomputed from the product it holds afterwards, in one
 * transaction. A stale or final outcome changes no grant.
 */
export const makeApplyObservation = Effect.gen(function*() {
  const repo = yield* PurchaseRepository
  const products = yield* StoreProducts
  const entitlements = yield* Entitlements
  const usage = yield* Usage
  const tx = yield* Transactor
  const changes = yield* ChangeLog
  const ids = yield* IdGenerator

  /**
   * Ends the purchase a new one replaced (Google `linkedPurchaseToken`), inside the new one's transaction: it is
   * marked `replaced` and its grants end, so the two never grant together; its audit entry and event go with it.
   */
  const retireReplaced = Effect.fn("Purchases.retireReplaced")(function*(storeRef: string, successor: Purchase, actor: Actor) {
    const found = yield* repo.findByStoreRef(successor.store, storeRef)
    if (Option.isNone(found)) return
    const { purchase: old } = yield* repo.lockOrInsert(found.value)
    if (!canTransition(old.status, "replaced")) return
    const now = yield* DateTime.now
    const retired = old.replacedAt(now)
    yield* repo.save(retired)
    yield* changes.record({
      workspaceId: retired.workspaceId,
      actor,
      action: "purchase.replaced",
      target: retired.id,
      event: emit(PurchaseEvents.statusChanged, { purchase: purchaseSummary(retired), from: old.status, to: retired.status })
    })
    yield* entitlements.reconcileSource({ workspaceId: retired.workspaceId, source: "purchase", sourceRef: retired.id, grants: [], actor })
  })

  return Effect.fn("Purchases.applyObservation")(function*(input: Application) {
    return yield* tx.withTransaction(Effect.gen(function*() {
      const now = yield* DateTime.now
      const { observation } = input
      const link = Option.isSome(observation.accountToken) ? yield* repo.findAccountLink(observation.accountToken.value) : Option.none()
      // The buyer's app tied the purchase to an account of another workspace: it stays there.
      if (Option.isSome(input.binding) && Option.isSome(link) && link.value.workspaceId !== input.binding.value.workspaceId) {
        return yield* new PurchaseOwnedElsewhere()
      }
      const owner = Option.orElse(input.binding, () => Option.map(link, (l) => ({ workspaceId: l.workspaceId, userId: l.userId })))
      const stored = yield* repo.findByStoreRef(observation.store, observation.storeRef)
      // A product this server does not sell starts no purchase (one already held still follows the store).
      const kind = kindFrom(products, observation.store, observation.productId, stored)
      if (Option.isNone(kind)) {
        const ignored: Applied = { _tag: "Ignored" }
        return ignored
      }
      // A stored purchase keeps its workspace; a new one goes to the caller or the account link, else waits for a sync.
      const ownerOf = Option.isSome(stored) ? Option.some({ workspaceId: stored.value.workspaceId, userId: stored.value.userId }) : owner
      if (Option.isNone(ownerOf)) {
        const unattributed: Applied = { _tag: "Unattributed" }
        return unattributed
      }
      const candidateOwner = ownerOf.value
      const candidate = new Purchase({
        id: PurchaseId.make(yield* ids.make("pur")),
        workspaceId: candidateOwner.workspaceId,
        userId: candidateOwner.userId,
        store: observation.store,
        environment: observation.environment,
        productId: observation.productId,
        kind: kind.value,
        storeRef: observation.storeRef,
        sealedToken: input.sealedToken,
        status: "pending",
        autoRenew: false,
        expiresAt: Option.none(),
        latestTransactionId: observation.transactionId,
        lastEventAt: epoch,
        lastVerifiedAt: Option.none(),
        acknowledgedAt: Option.none(),
        ackAttempts: 0,
        nextCheckAt: Option.none(),
        createdAt: now,
        updatedAt: now
      })
      const { inserted, purchase } = yield* repo.lockOrInsert(candidate)
      if (Option.isSome(input.binding) && purchase.workspaceId !== input.binding.value.workspaceId) return yield* new PurchaseOwnedElsewhere()
      const transition = purchase.apply(observation, now)
      const next = Option.isNone(transition.purchase.sealedToken) && Option.isSome(input.sealedToken)
        ? new Purchase({ ...transition.purchase, sealedToken: input.sealedToken })
        : transition.purchase
      yield* repo.save(next)
      const workspaceId = next.workspaceId
      if (inserted) {
        yield* changes.record({ workspaceId, actor: input.actor, action: "purchase.created", target: next.id, event: emit(PurchaseEvents.created, { purchase: purchaseSummary(next) }) })
      } else if (transition.outcome === "applied" && transition.from !== transition.to) {
        yield* changes.record({
          workspaceId,
          actor: input.actor,
          // The store's reversal of a refund; the grants below come back with it, in this transaction.
          action: transition.refundReversed ? "purchase.refund_reversed" : "purchase.status_changed",
          target: next.id,
          event: emit(PurchaseEvents.statusChanged, { purchase: purchaseSummary(next), from: transition.from, to: transition.to })
        })
      }
      if (!inserted && transition.outcome === "applied" && transition.fromProductId !== next.productId) {
        yield* changes.record({
          workspaceId,
          actor: input.actor,
          action: "purchase.product_changed",
          target: next.id,
          event: emit(PurchaseEvents.productChanged, { purchase: purchaseSummary(next), fromProductId: transition.fromProductId, toProductId: next.productId })
        })
      }
      if (transition.from !== "refunded" && next.status === "refunded") {
        yield* changes.record({ workspaceId, actor: input.actor, action: "purchase.refunded", target: next.id, event: emit(PurchaseEvents.refunded, { purchase: purchaseSummary(next) }) })
      }
      // The grants follow the purchase's own product after the observation, never what the caller had in hand.
      if (changesGrants(transition.outcome)) {
        yield* entitlements.reconcileSource({ workspaceId, source: "purchase", sourceRef: next.id, grants: next.grantsAt(products, now), actor: input.actor })
      }
      const credits = Option.match(products.find(next.store, next.productId), { onNone: () => 0, onSome: creditsOf })
      if (changesGrants(transition.outcome) && next.kind === "consumable" && next.status === "active" && credits > 0) {
        yield* usage.creditOnce(workspaceId, `${next.store}:${next.latestTransactionId}`, credits, input.actor).pipe(
          Effect.catchTag("InvalidInput", () => Effect.succeed(false))
        )
      }
      if (Option.isSome(observation.replaces) && observation.replaces.value !== next.storeRef && entitlingOrPending(next)) {
        yield* retireReplaced(observation.replaces.value, next, input.actor)
      }
      // The audit line of this sync or notification, whatever it changed.
      yield* changes.record({ workspaceId, actor: input.actor, action: input.action, target: next.id })
      const applied: Applied = { _tag: "Applied", purchase: next, transition: { ...transition, purchase: next } }
      return applied
    }))
  })
})

/** Applies an observation in one transaction. */
export type ApplyObservation = Effect.Success<typeof makeApplyObservation>
