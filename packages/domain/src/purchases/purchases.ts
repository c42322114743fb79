import { Context, DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { type Acting, type Forbidden, memberOf, type InsufficientScope, type OperatorPrincipal, permits, type Principal, roleAllows, type SessionPrincipal } from "../access/index.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { Usage } from "../billing/index.ts"
import { Entitlements } from "../entitlements/index.ts"
import {
  type Actor,
  IdempotencyKeyReused,
  IdGenerator,
  InvalidInput,
  NotFound,
  type Page,
  type PageRequest,
  PurchaseId,
  SecretBox,
  SecretHasher,
  SecureRandom,
  StoreNotificationId,
  systemActor,
  Transactor,
  Unavailable,
  type UserId,
  type WorkQueue,
  type WorkspaceId
} from "../shared/index.ts"
import { AppleNotification, AppleRenewal, AppleTransaction, appleObservation } from "./apple-payloads.ts"
import { type Availability, type OfferedProduct, storeOf, type UnavailableReason } from "./availability.ts"
import { developerNotificationOf, PubSubPush } from "./google-payloads.ts"
import {
  AppAccountToken,
  canTransition,
  changesGrants,
  Purchase,
  type PurchaseTransition,
  type Store,
  type StoreObservation
} from "./purchase.ts"
import { InvalidSignature, PurchaseOwnedElsewhere, StoreNotConfigured, StoreRejected, StoreUnreachable } from "./purchase-errors.ts"
import { PurchaseEvents, purchaseSummary } from "./purchase-events.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import { ClientSyncBody, type QueuedSync, queuedSyncOf, type SyncRequest, type SyncResult, syncVerificationBudget } from "./purchase-sync.ts"
import { PlayStoreApi } from "./store-apis.ts"
import { isConfigured, StoreConfiguration } from "./store-configuration.ts"
import { type NotificationOutcome, NotificationInbox, StoreNotification } from "./store-notification.ts"
import { creditsOf, StoreProducts } from "./store-product.ts"
import { makeStoreReads } from "./store-reads.ts"
import { StoreSignatures } from "./store-signatures.ts"

/** The result of applying an observation. */
type Applied =
  | { readonly _tag: "Applied"; readonly purchase: Purchase; readonly transition: PurchaseTransition }
  | { readonly _tag: "Unattributed" }
  | { readonly _tag: "Ignored" }

const outcomeOf = (applied: Applied): NotificationOutcome =>
  applied._tag === "Applied" ? applied.transition.outcome : applied._tag === "Ignored" ? "ignored" : "unattributed"

type StoreFailure = StoreUnreachable | StoreRejected | InvalidSignature | InvalidInput

const decodeJson = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => Schema.decodeUnknownEffect(Schema.fromJsonString(schema))

const epoch = DateTime.makeUnsafe(0)

/**
 * In-app purchases: availability, client syncs verified with the store, signed store notifications through an inbox,
 * and a reconciler. Every change of a purchase, its grants and its credits commits in one transaction.
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
  /** Verifies and stores an App Store Server Notification V2 (`{ signedPayload }`); processing happens in the worker. */
  readonly receiveApple: (body: string) => Effect.Effect<void, InvalidSignature | InvalidInput | Unavailable>
  /** Verifies a Pub/Sub push's token and stores the notification; processing happens in the worker. */
  readonly receiveGoogle: (authorization: string, body: string) => Effect.Effect<void, InvalidSignature | InvalidInput | Unavailable>
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
      const repo = yield* PurchaseRepository
      const inbox = yield* NotificationInbox
      const products = yield* StoreProducts
      const configuration = yield* StoreConfiguration
      const signatures = yield* StoreSignatures
      const playStore = yield* PlayStoreApi
      const entitlements = yield* Entitlements
      const usage = yield* Usage
      const tx = yield* Transactor
      const changes = yield* ChangeLog
      const ids = yield* IdGenerator
      const random = yield* SecureRandom
      const hasher = yield* SecretHasher
      const box = yield* SecretBox

      const storeActor = (store: Store): Actor => systemActor(store)

      // A version 4 UUID: 122 random bits with the version and variant bits set.
      const newAccountToken = random.bytes(16).pipe(Effect.map((bytes) => {
        const hex = Array.from(bytes, (b, i) => (i === 6 ? (b & 0x0f) | 0x40 : i === 8 ? (b & 0x3f) | 0x80 : b).toString(16).padStart(2, "0")).join("")
        return AppAccountToken.make(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`)
      }))

      const { verifiedApple, checkApple, kindOf, readGoogle, tokenRef, resolveClient, reread } = yield* makeStoreReads

      // ---- applying what the store says ------------------------------------------------------------------------------

      // A successor that never took effect (its payment canceled, say) leaves the purchase it would have replaced alone.
      const entitlingOrPending = (purchase: Purchase) => purchase.status === "pending" || purchase.entitlesAt(purchase.updatedAt)

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

      /**
       * Upserts the purchase, applies the observation (status and product, as the store reports them), recomputes its
       * grants and credits from the product it holds afterwards: one transaction. A stale or final outcome changes no grant.
       */
      const applyObservation = Effect.fn("Purchases.applyObservation")(function*(input: {
        readonly observation: StoreObservation
        readonly sealedToken: Option.Option<string>
        readonly binding: Option.Option<{ readonly workspaceId: WorkspaceId; readonly userId: UserId }>
        readonly actor: Actor
        readonly action: string
      }) {
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
          const kind = Option.orElse(Option.map(products.find(observation.store, observation.productId), (p) => p.kind), () => Option.map(stored, (p) => p.kind))
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

      /** Settles with Google: consumes a consumable (which acknowledges it), acknowledges anything else. */
      const settleWithStore = (purchase: Purchase, token: Redacted.Redacted<string>) =>
        purchase.kind === "consumable"
          ? playStore.consume(purchase.productId, token)
          : playStore.acknowledge(purchase.kind === "subscription" ? "subscription" : "product", purchase.productId, token)

      // Google refuses to settle a purchase twice (400): when it refuses, its own record says whether it is already
      // settled (by an earlier attempt whose answer was lost), so a repeat has no second effect.
      const settledAtStore = Effect.fn("Purchases.settledAtStore")(function*(purchase: Purchase, token: Redacted.Redacted<string>) {
        const observed = yield* readGoogle(purchase, token, purchase.storeRef).pipe(Effect.option)
        return Option.exists(observed, (observation) => observation.acknowledged)
      })

      /**
       * Acknowledges (or consumes) a Google purchase after its grant committed: background work, at least once, one
       * effect; a failure is retried by the reconciler with back-off.
       */
      const acknowledge = Effect.fn("Purchases.acknowledge")(function*(purchase: Purchase) {
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
              actor: storeActor(current.store),
              action: current.kind === "consumable" ? "purchase.consumed" : "purchase.acknowledged",
              target: current.id
            })
          } else {
            yield* repo.save(current.acknowledgementFailed(now))
          }
        }))
      })

      // ---- client sync ----------------------------------------------------------------------------------------------

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

      const sync = Effect.fn("Purchases.sync")(function*(acting: Acting, request: SyncRequest, idempotencyKey?: string) {
        const member = yield* memberOf(acting)
        yield* permits(member, "purchases.manage")
        if (!isConfigured(configuration, request.store)) return yield* new StoreNotConfigured({ store: request.store })
        if (idempotencyKey !== undefined) {
          const fingerprint = request.store === "app_store" ? request.signedTransaction : `${request.productId}\u0000${Redacted.value(request.purchaseToken)}`
          const requestHash = yield* hasher.digest(Redacted.make(`${request.store}\u0000${fingerprint}`))
          const first = yield* repo.reserveSyncKey(member.workspaceId, idempotencyKey, requestHash, yield* DateTime.now)
          // The same request again simply syncs again: a sync is idempotent by construction.
          if (Option.isSome(first) && first.value !== requestHash) return yield* new IdempotencyKeyReused()
        }
        const resolved = yield* refusedQuietly("client_sync", resolveClient(request)).pipe(
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

      // ---- availability, reads ----------------------------------------------------------------------------------------

      const availability = Effect.fn("Purchases.availability")(function*(acting: Acting, platform: string) {
        const member = yield* memberOf(acting)
        yield* permits(member, "purchases.read")
        const store = storeOf(platform)
        const refuse = (reason: UnavailableReason, offered: ReadonlyArray<OfferedProduct> = []): Availability => ({
          available: false,
          reason,
          appAccountToken: null,
          products: offered
        })
        if (store === undefined) return refuse("platform_not_supported")
        const catalog = products.list(store)
        if (!isConfigured(configuration, store) || catalog.length === 0) return refuse("store_not_configured")
        const now = yield* DateTime.now
        const owned = (yield* repo.listAll(member.workspaceId)).filter((purchase) => purchase.entitlesAt(now))
        const offered = catalog.map((product): OfferedProduct => ({
          productId: product.productId,
          kind: product.kind,
          features: product.features,
          credits: product.credits ?? 0,
          owned: owned.some((purchase) => purchase.store === store && purchase.productId === product.productId && purchase.kind !== "consumable")
        }))
        if (!roleAllows(member.role, "purchases.manage")) return refuse("role_forbidden", offered)
        const appAccountToken = yield* repo.accountLink(member.workspaceId, member.userId, yield* newAccountToken)
        // One workspace, one store for subscriptions: a second would bill twice and neither store could cancel the other.
        const elsewhere = owned.some((purchase) => purchase.store !== store && purchase.kind === "subscription")
        const answer: Availability = { available: !elsewhere, reason: elsewhere ? "managed_elsewhere" : null, appAccountToken, products: offered }
        return answer
      })

      const list = Effect.fn("Purchases.list")(function*(principal: Principal, page: PageRequest) {
        yield* permits(principal, "purchases.read")
        return yield* repo.list(principal.workspaceId, page)
      })

      const get = Effect.fn("Purchases.get")(function*(principal: Principal, id: PurchaseId) {
        yield* permits(principal, "purchases.read")
        const found = yield* repo.findById(principal.workspaceId, id)
        if (Option.isNone(found)) return yield* new NotFound({ resource: "purchase" })
        return found.value
      })

      const syncStatus = Effect.fn("Purchases.syncStatus")(function*(principal: Principal, id: StoreNotificationId) {
        yield* permits(principal, "purchases.read")
        const found = yield* inbox.findById(id)
        if (Option.isNone(found) || found.value.source !== "client_sync" || !Option.contains(found.value.workspaceId, principal.workspaceId)) {
          return yield* new NotFound({ resource: "purchase_sync" })
        }
        return queuedSyncOf(found.value, yield* DateTime.now)
      })

      // ---- notifications --------------------------------------------------------------------------------------------

      const store = Effect.fn("Purchases.storeNotification")(function*(source: "apple" | "google", externalId: string, body: string) {
        const now = yield* DateTime.now
        yield* inbox.insert(new StoreNotification({
          id: StoreNotificationId.make(yield* ids.make("sn")),
          source,
          externalId,
          sealedBody: yield* box.seal(Redacted.make(body)),
          workspaceId: Option.none(),
          userId: Option.none(),
          receivedAt: now,
          attempts: 0,
          nextAttemptAt: Option.some(now),
          processedAt: Option.none(),
          outcome: Option.none()
        }))
      })

      const SignedPayloadBody = Schema.Struct({ signedPayload: Schema.String.check(Schema.isMaxLength(100_000)) })

      const verifiedAppleNotification = Effect.fn("Purchases.verifiedAppleNotification")(function*(signedPayload: string, at: DateTime.Utc) {
        const notification = yield* verifiedApple(AppleNotification, signedPayload, at)
        if (notification.data !== undefined) yield* checkApple(notification.data.bundleId, notification.data.environment)
        return notification
      })

      // A store that sends notifications to a server not configured for it is an operator's problem, not a forgery:
      // 503 (the store retries, so nothing is lost once it is configured), logged as an error where operators look.
      const notConfigured = (store: Store) =>
        Effect.logError("a store notification arrived but this server is not configured for that store; answered 503 until it is", { store }).pipe(
          Effect.andThen(Effect.fail(new Unavailable({ dependency: `${store} configuration` })))
        )

      // Which check failed goes to the log; the caller is told `invalid_signature` and nothing more.
      const refusedQuietly = <A, E, R>(source: string, effect: Effect.Effect<A, E | InvalidSignature, R>) =>
        effect.pipe(
          Effect.tapError((error) =>
            error instanceof InvalidSignature ? Effect.logWarning("store signature refused", { source, reason: error.reason ?? "unknown" }) : Effect.void
          ),
          Effect.mapError((error) => error instanceof InvalidSignature ? new InvalidSignature({}) : error)
        )

      const receiveApple = Effect.fn("Purchases.receiveApple")(function*(body: string) {
        if (Option.isNone(configuration.apple)) return yield* notConfigured("app_store")
        const { signedPayload } = yield* decodeJson(SignedPayloadBody)(body).pipe(
          Effect.mapError(() => new InvalidInput({ detail: "expected { signedPayload }" }))
        )
        const notification = yield* refusedQuietly("apple", verifiedAppleNotification(signedPayload, yield* DateTime.now))
        yield* store("apple", notification.notificationUUID, signedPayload)
      })

      const receiveGoogle = Effect.fn("Purchases.receiveGoogle")(function*(authorization: string, body: string) {
        if (Option.isNone(configuration.google)) return yield* notConfigured("play_store")
        yield* refusedQuietly("google", signatures.verifyGooglePush(authorization))
        const push = yield* decodeJson(PubSubPush)(body).pipe(Effect.mapError(() => new InvalidInput({ detail: "expected a Pub/Sub push" })))
        // Refused at intake what the worker could not act on (a lone surrogate in a token, say): the sender hears it now.
        yield* developerNotificationOf(push)
        yield* store("google", push.message.messageId, body)
      })

      const processApple = Effect.fn("Purchases.processApple")(function*(item: StoreNotification, body: string) {
        const notification = yield* verifiedAppleNotification(body, item.receivedAt)
        const data = notification.data
        if (data === undefined || data.signedTransactionInfo === undefined) return "ignored" as const
        const environment = yield* checkApple(data.bundleId, data.environment)
        const transaction = yield* verifiedApple(AppleTransaction, data.signedTransactionInfo, item.receivedAt)
        const renewal = data.signedRenewalInfo === undefined
          ? Option.none()
          : Option.some(yield* verifiedApple(AppleRenewal, data.signedRenewalInfo, item.receivedAt))
        const kind = yield* kindOf("app_store", transaction.productId, transaction.originalTransactionId)
        if (Option.isNone(kind)) return "ignored" as const
        const observation = appleObservation({
          transaction,
          environment,
          renewal,
          statusCode: Option.fromNullishOr(data.status),
          notificationType: Option.some(notification.notificationType),
          subtype: Option.fromNullishOr(notification.subtype),
          kind: kind.value,
          storeTime: DateTime.makeUnsafe(notification.signedDate)
        })
        return yield* applyNotification(observation, Option.none())
      })

      const processGoogle = Effect.fn("Purchases.processGoogle")(function*(body: string) {
        const push = yield* decodeJson(PubSubPush)(body).pipe(Effect.mapError(() => new InvalidInput({ detail: "push" })))
        const notification = yield* developerNotificationOf(push)
        const settings = configuration.google
        if (Option.isNone(settings) || notification.packageName !== settings.value.packageName) return "ignored" as const
        const token = notification.subscriptionNotification?.purchaseToken ?? notification.oneTimeProductNotification?.purchaseToken ??
          notification.voidedPurchaseNotification?.purchaseToken
        if (token === undefined) return "ignored" as const
        const secret = Redacted.make(token)
        const storeRef = yield* tokenRef(secret)
        const stored = yield* repo.findByStoreRef("play_store", storeRef)
        const productId = Option.isSome(stored)
          ? stored.value.productId
          : notification.subscriptionNotification?.subscriptionId ?? notification.oneTimeProductNotification?.sku
        if (productId === undefined) return "ignored" as const
        const kind = yield* kindOf("play_store", productId, storeRef)
        if (Option.isNone(kind)) return "ignored" as const
        if (notification.voidedPurchaseNotification !== undefined) {
          if (Option.isNone(stored)) return "ignored" as const
          const eventTime = Number(notification.eventTimeMillis ?? "")
          const voided: StoreObservation = {
            store: "play_store",
            environment: stored.value.environment,
            storeRef,
            productId,
            status: "refunded",
            autoRenew: false,
            expiresAt: stored.value.expiresAt,
            storeTime: Number.isFinite(eventTime) && eventTime > 0 ? DateTime.makeUnsafe(eventTime) : yield* DateTime.now,
            transactionId: notification.voidedPurchaseNotification.orderId ?? stored.value.latestTransactionId,
            accountToken: Option.none(),
            acknowledged: Option.isSome(stored.value.acknowledgedAt),
            refundReversed: false,
            replaces: Option.none()
          }
          return yield* applyNotification(voided, Option.none())
        }
        // The notification is only a signal: the subscription is read back from the store.
        const observation = yield* readGoogle({ productId, kind: kind.value }, secret, storeRef)
        return yield* applyNotification(observation, Option.some(yield* box.seal(secret)))
      })

      const processClientSync = Effect.fn("Purchases.processClientSync")(function*(item: StoreNotification, body: string) {
        const request = yield* decodeJson(ClientSyncBody)(body).pipe(Effect.mapError(() => new InvalidInput({ detail: "sync" })))
        if (Option.isNone(item.workspaceId) || Option.isNone(item.userId)) return "ignored" as const
        const resolved = yield* resolveClient(
          request.store === "app_store" ? request : { store: "play_store", purchaseToken: Redacted.make(request.purchaseToken), productId: request.productId }
        )
        const applied = yield* applyObservation({
          ...resolved,
          binding: Option.some({ workspaceId: item.workspaceId.value, userId: item.userId.value }),
          actor: { type: "user", id: item.userId.value },
          action: "purchase.synced"
        })
        if (applied._tag === "Applied") yield* acknowledge(applied.purchase)
        return outcomeOf(applied)
      })

      const applyNotification = (observation: StoreObservation, sealedToken: Option.Option<string>) =>
        applyObservation({
          observation,
          sealedToken,
          binding: Option.none(),
          actor: storeActor(observation.store),
          action: "purchase.notification_processed"
        }).pipe(
          Effect.tap((applied) => applied._tag === "Applied" ? acknowledge(applied.purchase) : Effect.void),
          Effect.map(outcomeOf)
        )

      const processNotification = Effect.fn("Purchases.processNotification")(function*(item: StoreNotification) {
        const body = Redacted.value(yield* box.open(item.sealedBody))
        const run: Effect.Effect<NotificationOutcome, StoreFailure | StoreNotConfigured | PurchaseOwnedElsewhere | Unavailable> =
          item.source === "apple" ? processApple(item, body) : item.source === "google" ? processGoogle(body) : processClientSync(item, body)
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

      // ---- reconciler ------------------------------------------------------------------------------------------------

      const reconcile = Effect.fn("Purchases.reconcile")(function*(purchase: Purchase) {
        if (purchase.needsAcknowledgement) return yield* acknowledge(purchase)
        // The store's current product (after an upgrade, say) comes back with the read; the grants follow it.
        const lookedUp = yield* reread(purchase).pipe(Effect.result)
        if (lookedUp._tag === "Failure") {
          // Never a revocation on a failed lookup: look again later.
          const now = yield* DateTime.now
          return yield* tx.withTransaction(repo.lockOrInsert(purchase).pipe(Effect.flatMap(({ purchase: current }) => repo.save(current.lookupFailed(now)))))
        }
        const applied = yield* applyObservation({
          observation: lookedUp.success,
          sealedToken: Option.none(),
          binding: Option.some({ workspaceId: purchase.workspaceId, userId: purchase.userId }),
          actor: storeActor(purchase.store),
          action: "purchase.reconciled"
        }).pipe(Effect.catchTag("PurchaseOwnedElsewhere", () => Effect.succeed({ _tag: "Unattributed" } as const)))
        if (applied._tag === "Applied") yield* acknowledge(applied.purchase)
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

      const reconcileQueue: WorkQueue<Purchase> = {
        name: "purchase-reconciler",
        claim: (limit) => DateTime.now.pipe(Effect.flatMap((now) => repo.claimDue(now, limit, DateTime.add(now, { seconds: 60 })))),
        step: (purchase) => reconcile(purchase)
      }

      return Purchases.of({
        availability,
        sync,
        list,
        get,
        syncStatus,
        receiveApple,
        receiveGoogle,
        inboxQueue,
        reconcileQueue,
        processNotification,
        reconcile,
        replay
      })
    })
  )
}
