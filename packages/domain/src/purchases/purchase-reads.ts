import { DateTime, Effect, Option } from "effect"
import { type Acting, memberOf, permits, type Principal, roleAllows } from "../access/index.ts"
import { NotFound, type PageRequest, type PurchaseId, SecureRandom, type StoreNotificationId } from "../shared/index.ts"
import { type Availability, type OfferedProduct, storeOf, type UnavailableReason } from "./availability.ts"
import { AppAccountToken } from "./purchase.ts"
import { PurchaseRepository } from "./purchase-repository.ts"
import { queuedSyncOf } from "./purchase-sync.ts"
import { NotificationInbox } from "./store-notification.ts"
import { StoreProducts } from "./store-product.ts"
import { Stores } from "./stores.ts"

/** What a member may buy on a platform, the workspace's purchases, and a queued sync's state. */
export const makePurchaseReads = Effect.gen(function*() {
  const repo = yield* PurchaseRepository
  const inbox = yield* NotificationInbox
  const products = yield* StoreProducts
  const stores = yield* Stores
  const random = yield* SecureRandom

  // A version 4 UUID: 122 random bits with the version and variant bits set.
  const newAccountToken = random.bytes(16).pipe(Effect.map((bytes) => {
    const hex = Array.from(bytes, (b, i) => (i === 6 ? (b & 0x0f) | 0x40 : i === 8 ? (b & 0x3f) | 0x80 : b).toString(16).padStart(2, "0")).join("")
    return AppAccountToken.make(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`)
  }))

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
    if (!stores.configured(store) || catalog.length === 0) return refuse("store_not_configured")
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

  return { availability, list, get, syncStatus }
})
