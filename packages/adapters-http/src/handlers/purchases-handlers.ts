import { CurrentMember, CurrentPrincipal, Purchases } from "@atrium/domain"
import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { IdempotencyKeyReusedProblem } from "../api/business-problems.ts"
import { InvalidSignatureProblem, PurchaseOwnedElsewhereProblem, StoreNotConfiguredProblem } from "../api/purchase-problems.ts"
import { forbiddenProblem } from "../middleware/session-refusals.ts"
import { invalidInputProblem, notFoundProblem, unavailableProblem } from "./domain-problems.ts"
import { pageRequestOf } from "./page-request.ts"
import { toPurchaseView } from "./purchase-views.ts"
import { toEntitlementView } from "./views.ts"

const invalidSignature = () => Effect.fail(new InvalidSignatureProblem({ detail: "The signature, certificate chain, bundle or environment does not verify" }))

/** Handlers of `/api/mobile/purchases…`. */
export const MobilePurchasesHandlers = HttpApiBuilder.group(
  Api,
  "mobilePurchases",
  Effect.fn("MobilePurchasesHandlers.make")(function*(handlers) {
    const purchases = yield* Purchases
    return handlers
      .handle("availability", Effect.fn("Purchases.availabilityRoute")(function*({ query }) {
        return yield* purchases.availability(yield* CurrentMember, query.platform).pipe(Effect.catchTag("Unavailable", unavailableProblem))
      }))
      .handle("sync", Effect.fn("Purchases.syncRoute")(function*({ headers, payload }) {
        const member = yield* CurrentMember
        const request = payload.store === "app_store"
          ? payload
          : { store: payload.store, purchaseToken: Redacted.make(payload.purchaseToken), productId: payload.productId }
        const result = yield* purchases.sync(member, request, headers["idempotency-key"]).pipe(
          Effect.catchTags({
            Forbidden: forbiddenProblem,
            StoreNotConfigured: () => Effect.fail(new StoreNotConfiguredProblem({ detail: "This server does not sell through that store" })),
            InvalidSignature: invalidSignature,
            InvalidInput: invalidInputProblem,
            PurchaseOwnedElsewhere: () => Effect.fail(new PurchaseOwnedElsewhereProblem({ detail: "The purchase belongs to another workspace" })),
            IdempotencyKeyReused: () => Effect.fail(new IdempotencyKeyReusedProblem({ detail: "The Idempotency-Key was used for another request" })),
            Unavailable: unavailableProblem
          })
        )
        if (result.status === "pending") return { status: "pending" as const }
        return { purchases: result.purchases.map(toPurchaseView), entitlement: { entitlements: result.entitlements.map(toEntitlementView) } }
      }))
      .handle("list", Effect.fn("Purchases.listRoute")(function*({ query }) {
        const page = yield* purchases.list((yield* CurrentMember).workspaceId, pageRequestOf(query)).pipe(Effect.catchTag("Unavailable", unavailableProblem))
        return { data: page.data.map(toPurchaseView), nextCursor: page.nextCursor }
      }))
      .handle("get", Effect.fn("Purchases.getRoute")(function*({ params }) {
        const purchase = yield* purchases.get((yield* CurrentMember).workspaceId, params.id).pipe(
          Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
        return toPurchaseView(purchase)
      }))
  })
)

/** Handler of `GET /api/v1/purchases`. */
export const V1PurchasesHandlers = HttpApiBuilder.group(
  Api,
  "v1Purchases",
  Effect.fn("V1PurchasesHandlers.make")(function*(handlers) {
    const purchases = yield* Purchases
    return handlers.handle("list", Effect.fn("V1.listPurchases")(function*({ query }) {
      const page = yield* purchases.list((yield* CurrentPrincipal).workspaceId, pageRequestOf(query)).pipe(Effect.catchTag("Unavailable", unavailableProblem))
      return { data: page.data.map(toPurchaseView), nextCursor: page.nextCursor }
    }))
  })
)

/** Handlers of `/api/store-notifications/…`: verify, store, answer; the worker does the rest. */
export const StoreNotificationsHandlers = HttpApiBuilder.group(
  Api,
  "storeNotifications",
  Effect.fn("StoreNotificationsHandlers.make")(function*(handlers) {
    const purchases = yield* Purchases
    return handlers
      .handle("apple", Effect.fn("StoreNotifications.apple")(function*({ payload }) {
        yield* purchases.receiveApple(JSON.stringify(payload)).pipe(
          Effect.catchTags({ InvalidSignature: invalidSignature, InvalidInput: invalidInputProblem, Unavailable: unavailableProblem })
        )
        return { received: true }
      }))
      .handle("google", Effect.fn("StoreNotifications.google")(function*({ headers, payload }) {
        yield* purchases.receiveGoogle(headers.authorization ?? "", JSON.stringify(payload)).pipe(
          Effect.catchTags({ InvalidSignature: invalidSignature, InvalidInput: invalidInputProblem, Unavailable: unavailableProblem })
        )
        return { received: true }
      }))
  })
)
