import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { type OperatorPrincipal, permits } from "../access/index.ts"
import { InvalidInput, NotFound, SecretBox, type StoreNotificationId, systemActor, type WorkQueue } from "../shared/index.ts"
import type { Acknowledge } from "./acknowledgement.ts"
import { type ApplyObservation, makeKindOf, outcomeOf } from "./apply-observation.ts"
import type { StoreObservation } from "./purchase.ts"
import type { InvalidSignature, PurchaseOwnedElsewhere, StoreNotConfigured, StoreRejected, StoreUnreachable } from "./purchase-errors.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import { ClientSyncBody } from "./purchase-sync.ts"
import { type NotificationOutcome, NotificationInbox, type StoreNotification } from "./store-notification.ts"
import type { StoreReads } from "./store-reads.ts"
import { observationOf, type StoreNotice, StoreNoticeJson, Stores } from "./stores.ts"
import type { Unavailable } from "../shared/index.ts"

type StoreFailure = StoreUnreachable | StoreRejected | InvalidSignature | InvalidInput

const decodeNotice = Schema.decodeUnknownEffect(StoreNoticeJson)
const decodeSync = Schema.decodeUnknownEffect(Schema.fromJsonString(ClientSyncBody))

/**
 * The inbox worker's step: one stored notice (or a queued client sync) applied, then the item completed or backed off.
 * The notice was verified at the door; nothing here speaks a store's format.
 */
export const makeNotificationProcessing = (reads: StoreReads, applyObservation: ApplyObservation, acknowledge: Acknowledge) =>
  Effect.gen(function*() {
    const repo = yield* PurchaseRepository
    const inbox = yield* NotificationInbox
    const box = yield* SecretBox
    const stores = yield* Stores
    const kindOf = yield* makeKindOf

    const applyNotification = (observation: StoreObservation, sealedToken: Option.Option<string>) =>
      applyObservation({ observation, sealedToken, binding: Option.none(), actor: systemActor(observation.store), action: "purchase.notification_processed" }).pipe(
        Effect.tap((applied) => applied._tag === "Applied" && applied.purchase.needsAcknowledgement ? acknowledge(applied.purchase) : Effect.void),
        Effect.map(outcomeOf)
      )

    // Google's notice is a signal about a token: the purchase is read back from the store, or withdrawn when voided.
    const processToken = Effect.fn("Purchases.processToken")(function*(notice: Extract<StoreNotice, { readonly _tag: "Changed" | "Voided" }>) {
      const secret = Redacted.make(notice.purchaseToken)
      const storeRef = yield* reads.tokenRef(secret)
      const stored = yield* repo.findByStoreRef(notice.store, storeRef)
      const productId = Option.isSome(stored) ? Option.some(stored.value.productId) : notice._tag === "Changed" ? notice.productId : Option.none()
      if (Option.isNone(productId)) return "ignored" as const
      const kind = yield* kindOf(notice.store, productId.value, storeRef)
      if (Option.isNone(kind)) return "ignored" as const
      if (notice._tag === "Voided") {
        if (Option.isNone(stored)) return "ignored" as const
        const voided: StoreObservation = {
          store: notice.store,
          environment: stored.value.environment,
          storeRef,
          productId: productId.value,
          status: "refunded",
          autoRenew: false,
          expiresAt: stored.value.expiresAt,
          storeTime: Option.isSome(notice.at) ? notice.at.value : yield* DateTime.now,
          transactionId: Option.getOrElse(notice.orderId, () => stored.value.latestTransactionId),
          accountToken: Option.none(),
          acknowledged: Option.isSome(stored.value.acknowledgedAt),
          refundReversed: false,
          replaces: Option.none()
        }
        return yield* applyNotification(voided, Option.none())
      }
      const observation = yield* reads.readGoogle({ productId: productId.value, kind: kind.value }, secret, storeRef)
      return yield* applyNotification(observation, Option.some(yield* box.seal(secret)))
    })

    // A row an earlier version stored holds the store's own format: its adapter reads it as it did then.
    const noticeOf = (item: StoreNotification, body: string) =>
      decodeNotice(body).pipe(
        Effect.catch(() =>
          item.source === "client_sync"
            ? Effect.fail(new InvalidInput({ detail: "notice" }))
            : stores.storedNotice(item.source === "apple" ? "app_store" : "play_store", body, item.receivedAt).pipe(Effect.map((received) => received.notice))
        )
      )

    const processNotice = Effect.fn("Purchases.processNotice")(function*(item: StoreNotification, body: string) {
      const notice = yield* noticeOf(item, body)
      if (notice._tag === "Nothing") return "ignored" as const
      if (notice._tag !== "Observed") return yield* processToken(notice)
      const { verdict } = notice
      const kind = yield* kindOf(verdict.store, verdict.productId, verdict.storeRef)
      if (Option.isNone(kind)) return "ignored" as const
      return yield* applyNotification(observationOf(verdict, kind.value), Option.none())
    })

    const processClientSync = Effect.fn("Purchases.processClientSync")(function*(item: StoreNotification, body: string) {
      const request = yield* decodeSync(body).pipe(Effect.mapError(() => new InvalidInput({ detail: "sync" })))
      if (Option.isNone(item.workspaceId) || Option.isNone(item.userId)) return "ignored" as const
      const resolved = yield* reads.resolveClient(
        request.store === "app_store" ? request : { store: "play_store", purchaseToken: Redacted.make(request.purchaseToken), productId: request.productId }
      )
      const applied = yield* applyObservation({
        ...resolved,
        binding: Option.some({ workspaceId: item.workspaceId.value, userId: item.userId.value }),
        actor: { type: "user", id: item.userId.value },
        action: "purchase.synced"
      })
      if (applied._tag === "Applied" && applied.purchase.needsAcknowledgement) yield* acknowledge(applied.purchase)
      return outcomeOf(applied)
    })

    const processNotification = Effect.fn("Purchases.processNotification")(function*(item: StoreNotification) {
      const body = Redacted.value(yield* box.open(item.sealedBody))
      const run: Effect.Effect<NotificationOutcome, StoreFailure | StoreNotConfigured | PurchaseOwnedElsewhere | Unavailable> =
        item.source === "client_sync" ? processClientSync(item, body) : processNotice(item, body)
      const outcome = yield* run.pipe(
        Effect.map((outcome): NotificationOutcome | "retry" => outcome),
        Effect.catchTags({
          StoreUnreachable: () => Effect.succeed("retry" as const),
          PurchaseOwnedElsewhere: () => Effect.succeed("owned_elsewhere" as const),
          StoreRejected: () => Effect.succeed("rejected" as const),
          InvalidSignature: () => Effect.succeed("rejected" as const),
          InvalidInput: () => Effect.succeed("rejected" as const),
          StoreNotConfigured: () => Effect.succeed("rejected" as const)
        }),
        // A fault in one item (a bug, an input nobody foresaw) must not kill the worker's step: it is logged, backed off.
        Effect.catchDefect((defect) =>
          Effect.logError("a store notification could not be processed; retried later", {
            id: item.id,
            source: item.source,
            defect: defect instanceof Error ? defect.name : "defect"
          }).pipe(Effect.as("retry" as const))
        )
      )
      const now = yield* DateTime.now
      if (outcome === "retry") {
        const attempts = item.attempts + 1
        yield* inbox.retryAt(item.id, attempts, DateTime.add(now, { seconds: Math.min(30 * 2 ** Math.min(attempts - 1, 10), 3600) }))
      } else {
        yield* inbox.complete(item.id, outcome, now)
      }
      return outcome
    })

    const replay = Effect.fn("Purchases.replay")(function*(principal: OperatorPrincipal, id: StoreNotificationId) {
      yield* permits(principal, "purchases.manage")
      if (!(yield* inbox.requeue(id, yield* DateTime.now))) return yield* new NotFound({ resource: "store_notification" })
    })

    const inboxQueue: WorkQueue<StoreNotification> = {
      name: "store-notifications",
      claim: (limit) => DateTime.now.pipe(Effect.flatMap((now) => inbox.claimDue(now, limit, DateTime.add(now, { seconds: 60 })))),
      step: (item) => processNotification(item)
    }

    return { processNotification, replay, inboxQueue }
  })
