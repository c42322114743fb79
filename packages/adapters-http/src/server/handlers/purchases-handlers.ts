import { CurrentPrincipal, Purchases } from "@atrium/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { pageRequestOf } from "./page-request.ts"
import { respondWith } from "../request-facts.ts"
import { toPurchaseSyncView, toPurchaseView } from "./purchase-views.ts"
import { toEntitlementView } from "./views.ts"

/** Handlers of `/api/mobile/purchases…`. */
export const MobilePurchasesHandlers = Layer.unwrap(Effect.gen(function*() {
    const purchases = yield* Purchases
    return leanGroup(HttpApiBuilder.group(Api, "mobilePurchases", (handlers) => handlers
      .handle("availability", Effect.fn("Purchases.availabilityRoute")(function*({ query }) {
        return yield* purchases.availability(yield* CurrentPrincipal, query.platform)
      }))
      .handle("sync", Effect.fn("Purchases.syncRoute")(function*({ headers, payload }) {
        const request = payload.store === "app_store"
          ? payload
          : { store: payload.store, purchaseToken: Redacted.make(payload.purchaseToken), productId: payload.productId }
        const result = yield* purchases.sync(yield* CurrentPrincipal, request, headers["idempotency-key"])
        if (result.status === "pending") {
          yield* respondWith({ "retry-after": String(result.sync.retryAfterSeconds) })
          return { status: "pending" as const, syncId: result.sync.id, retryAfterSeconds: result.sync.retryAfterSeconds }
        }
        return { purchases: result.purchases.map(toPurchaseView), entitlement: { entitlements: result.entitlements.map(toEntitlementView) } }
      }))
      .handle("list", Effect.fn("Purchases.listRoute")(function*({ query }) {
        const page = yield* purchases.list(yield* CurrentPrincipal, pageRequestOf(query))
        return { data: page.data.map(toPurchaseView), nextCursor: page.nextCursor }
      }))
      .handle("syncStatus", Effect.fn("Purchases.syncStatusRoute")(function*({ params }) {
        const queued = yield* purchases.syncStatus(yield* CurrentPrincipal, params.id)
        if (queued.status === "pending") yield* respondWith({ "retry-after": String(queued.retryAfterSeconds) })
        return toPurchaseSyncView(queued)
      }))
      .handle("get", Effect.fn("Purchases.getRoute")(function*({ params }) {
        return toPurchaseView(yield* purchases.get(yield* CurrentPrincipal, params.id))
      }))))
}))

/** Handler of `GET /api/v1/purchases`. */
export const V1PurchasesHandlers = Layer.unwrap(Effect.gen(function*() {
    const purchases = yield* Purchases
    return leanGroup(HttpApiBuilder.group(Api, "v1Purchases", (handlers) => handlers
      .handle("list", Effect.fn("V1.listPurchases")(function*({ query }) {
        const page = yield* purchases.list(yield* CurrentPrincipal, pageRequestOf(query))
        return { data: page.data.map(toPurchaseView), nextCursor: page.nextCursor }
      }))))
}))

/** Handlers of `/api/store-notifications/…`: the decoded body to its store's adapter (verified once), stored, answered; the worker does the rest. */
export const StoreNotificationsHandlers = Layer.unwrap(Effect.gen(function*() {
    const purchases = yield* Purchases
    return leanGroup(HttpApiBuilder.group(Api, "storeNotifications", (handlers) => handlers
      .handle("apple", Effect.fn("StoreNotifications.apple")(function*({ payload }) {
        yield* purchases.receive("app_store", { authorization: "", body: payload })
        return { received: true }
      }))
      .handle("google", Effect.fn("StoreNotifications.google")(function*({ headers, payload }) {
        yield* purchases.receive("play_store", { authorization: headers.authorization ?? "", body: payload })
        return { received: true }
      }))))
}))
