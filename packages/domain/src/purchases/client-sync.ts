import { DateTime, Effect, Option, Redacted } from "effect"
import { type Acting, memberOf, permits, type SessionPrincipal } from "../access/index.ts"
import { Entitlements } from "../entitlements/index.ts"
import { IdempotencyKeyReused, IdGenerator, InvalidInput, SecretBox, SecretHasher, StoreNotificationId } from "../shared/index.ts"
import type { ApplyObservation } from "./apply-observation.ts"
import { refusedQuietly, StoreNotConfigured, StoreUnreachable } from "./purchase-errors.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import { queuedSyncOf, type SyncRequest, type SyncResult, syncVerificationBudget } from "./purchase-sync.ts"
import { NotificationInbox, StoreNotification } from "./store-notification.ts"
import type { StoreReads } from "./store-reads.ts"
import { Stores } from "./stores.ts"

/**
 * A member's sync of a purchase: verified with the store within a budget and applied at once, or queued in the inbox
 * when the store cannot be reached (the worker resolves it later; the member follows it by its id).
 */
export const makeClientSync = (reads: StoreReads, applyObservation: ApplyObservation) =>
  Effect.gen(function*() {
    const repo = yield* PurchaseRepository
    const inbox = yield* NotificationInbox
    const stores = yield* Stores
    const entitlements = yield* Entitlements
    const ids = yield* IdGenerator
    const hasher = yield* SecretHasher
    const box = yield* SecretBox

    const pendingSync = Effect.fn("Purchases.pendingSync")(function*(member: SessionPrincipal, request: SyncRequest) {
      const body = request.store === "app_store"
        ? JSON.stringify({ store: request.store, signedTransaction: request.signedTransaction })
        : JSON.stringify({ store: request.store, purchaseToken: Redacted.value(request.purchaseToken), productId: request.productId })
      const now = yield* DateTime.now
      const nextAttemptAt = DateTime.add(now, { minutes: 1 })
      const externalId = yield* hasher.digest(Redacted.make(`${member.workspaceId}\u0000${body}`))
      const candidate = new StoreNotification({
        id: StoreNotificationId.make(yield* ids.make("sn")),
        source: "client_sync",
        externalId,
        sealedBody: yield* box.seal(Redacted.make(body)),
        workspaceId: Option.some(member.workspaceId),
        userId: Option.some(member.userId),
        receivedAt: now,
        attempts: 0,
        nextAttemptAt: Option.some(nextAttemptAt),
        processedAt: Option.none(),
        outcome: Option.none()
      })
      // The same request again follows the sync already queued; one processed before is queued again.
      const queued = (yield* inbox.insert(candidate)) ? Option.some(candidate) : yield* inbox.findByExternalId("client_sync", externalId)
      const item = Option.getOrElse(queued, () => candidate)
      const current = Option.isSome(item.processedAt) && (yield* inbox.requeue(item.id, nextAttemptAt))
        ? new StoreNotification({ ...item, processedAt: Option.none(), outcome: Option.none(), nextAttemptAt: Option.some(nextAttemptAt) })
        : item
      const pending: SyncResult = { status: "pending", sync: queuedSyncOf(current, now) }
      return pending
    })

    return Effect.fn("Purchases.sync")(function*(acting: Acting, request: SyncRequest, idempotencyKey?: string) {
      const member = yield* memberOf(acting)
      yield* permits(member, "purchases.manage")
      if (!stores.configured(request.store)) return yield* new StoreNotConfigured({ store: request.store })
      if (idempotencyKey !== undefined) {
        const fingerprint = request.store === "app_store" ? request.signedTransaction : `${request.productId}\u0000${Redacted.value(request.purchaseToken)}`
        const requestHash = yield* hasher.digest(Redacted.make(`${request.store}\u0000${fingerprint}`))
        const first = yield* repo.reserveSyncKey(member.workspaceId, idempotencyKey, requestHash, yield* DateTime.now)
        // The same request again simply syncs again: a sync is idempotent by construction.
        if (Option.isSome(first) && first.value !== requestHash) return yield* new IdempotencyKeyReused()
      }
      const resolved = yield* refusedQuietly("client_sync", reads.resolveClient(request)).pipe(
        Effect.timeoutOrElse({
          duration: syncVerificationBudget,
          orElse: () => Effect.fail(new StoreUnreachable({ store: request.store, reason: "no answer within the sync budget" }))
        }),
        Effect.result
      )
      if (resolved._tag === "Failure") {
        const error = resolved.failure
        if (error._tag === "StoreUnreachable") {
          yield* Effect.logWarning("store unreachable during a client sync; queued for retry", { store: error.store, reason: error.reason })
          return yield* pendingSync(member, request)
        }
        if (error._tag === "StoreRejected") return yield* new InvalidInput({ detail: "the store does not know this purchase" })
        return yield* error
      }
      const { observation, sealedToken } = resolved.success
      const applied = yield* applyObservation({
        observation,
        sealedToken,
        binding: Option.some({ workspaceId: member.workspaceId, userId: member.userId }),
        actor: { type: "user", id: member.userId },
        action: "purchase.synced"
      })
      if (applied._tag === "Ignored") return yield* new InvalidInput({ detail: `"${observation.productId}" is not a product of this server` })
      if (applied._tag !== "Applied") return yield* Effect.die(new Error("a bound sync is always attributed"))
      // No store call after the grant: a due acknowledgement is the reconciler's (the purchase is scheduled for now).
      const synced: SyncResult = {
        status: "synced",
        purchases: [Option.getOrElse(yield* repo.findById(member.workspaceId, applied.purchase.id), () => applied.purchase)],
        // A member session is never refused for want of a key scope.
        entitlements: yield* entitlements.active(member).pipe(Effect.catchTag("InsufficientScope", Effect.die))
      }
      return synced
    })
  })
