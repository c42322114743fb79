import { Context, Effect, Layer } from "effect"
import type { Acting, Forbidden, InsufficientScope, OperatorPrincipal, Principal } from "../access/index.ts"
import type { IdempotencyKeyReused, InvalidInput, NotFound, Page, PageRequest, PurchaseId, StoreNotificationId, Unavailable, WorkQueue } from "../shared/index.ts"
import { makeAcknowledgement } from "./acknowledgement.ts"
import { makeApplyObservation } from "./apply-observation.ts"
import type { Availability } from "./availability.ts"
import { makeClientSync } from "./client-sync.ts"
import { makeNotificationIntake } from "./notification-intake.ts"
import { makeNotificationProcessing } from "./notification-processing.ts"
import type { Purchase, Store } from "./purchase.ts"
import type { InvalidSignature, PurchaseOwnedElsewhere, StoreNotConfigured } from "./purchase-errors.ts"
import { makePurchaseReads } from "./purchase-reads.ts"
import type { QueuedSync, SyncRequest, SyncResult } from "./purchase-sync.ts"
import { makeReconciler } from "./reconcile.ts"
import type { NotificationOutcome, StoreNotification } from "./store-notification.ts"
import { makeStoreReads } from "./store-reads.ts"
import type { StoreDelivery } from "./stores.ts"

/**
 * In-app purchases: availability, client syncs verified with the store, store notifications verified at the door and
 * applied through an inbox, and a reconciler; one file per use case, assembled here. Every change of a purchase, its
 * grants and its credits commits in one transaction (`apply-observation.ts`).
 */
export class Purchases extends Context.Service<Purchases, {
  readonly availability: (member: Acting, platform: string) => Effect.Effect<Availability, Forbidden | Unavailable>
  readonly sync: (
    member: Acting,
    request: SyncRequest,
    idempotencyKey?: string
  ) => Effect.Effect<
    SyncResult,
    Forbidden | StoreNotConfigured | InvalidSignature | InvalidInput | PurchaseOwnedElsewhere | IdempotencyKeyReused | Unavailable
  >
  /** The principal's workspace's purchases, newest first (`purchases.read`). */
  readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<Purchase>, Forbidden | InsufficientScope | Unavailable>
  readonly get: (principal: Principal, id: PurchaseId) => Effect.Effect<Purchase, Forbidden | InsufficientScope | NotFound | Unavailable>
  /** Verifies a store's notification with its store and stores what it says; processing happens in the worker. */
  readonly receive: (store: Store, delivery: StoreDelivery) => Effect.Effect<void, InvalidSignature | InvalidInput | Unavailable>
  /** The inbox as a worker queue. */
  readonly inboxQueue: WorkQueue<StoreNotification>
  /** Purchases due for a re-read or an acknowledgement, as a worker queue. */
  readonly reconcileQueue: WorkQueue<Purchase>
  /** One inbox item, processed (the worker's step; also what a replay leads to). */
  readonly processNotification: (item: StoreNotification) => Effect.Effect<NotificationOutcome | "retry", Unavailable>
  /** One purchase re-read or acknowledged (the reconciler's step). */
  readonly reconcile: (purchase: Purchase) => Effect.Effect<void, Unavailable>
  /** A client sync that answered pending, by its id (`purchases.read`; another workspace's is not found). */
  readonly syncStatus: (principal: Principal, id: StoreNotificationId) => Effect.Effect<QueuedSync, Forbidden | InsufficientScope | NotFound | Unavailable>
  /** Queues a stored notification again (operator CLI). */
  readonly replay: (principal: OperatorPrincipal, id: StoreNotificationId) => Effect.Effect<void, Forbidden | NotFound | Unavailable>
}>()("@atrium/domain/Purchases") {
  static readonly layer = Layer.effect(
    Purchases,
    Effect.gen(function*() {
      const reads = yield* makeStoreReads
      const applyObservation = yield* makeApplyObservation
      const acknowledge = yield* makeAcknowledgement(reads)
      const { availability, list, get, syncStatus } = yield* makePurchaseReads
      const sync = yield* makeClientSync(reads, applyObservation)
      const receive = yield* makeNotificationIntake
      const { processNotification, replay, inboxQueue } = yield* makeNotificationProcessing(reads, applyObservation, acknowledge)
      const { reconcile, reconcileQueue } = yield* makeReconciler(reads, applyObservation, acknowledge)
      return Purchases.of({ availability, sync, list, get, syncStatus, receive, inboxQueue, reconcileQueue, processNotification, reconcile, replay })
    })
  )
}
