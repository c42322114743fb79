import { PurchaseId, StoreNotificationId } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { IdempotencyKey } from "./ai-task-schemas.ts"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { memberRoutes, publicRoutes, v1Routes } from "./front-door.ts"
import { PageQuery } from "./page-query.ts"
import { PurchaseProblems } from "./purchase-problems.ts"
import {
  AppleNotificationBody,
  AvailabilityQuery,
  AvailabilityView,
  GooglePushBody,
  PurchaseList,
  PurchaseSyncView,
  PurchaseView,
  SyncedView,
  SyncPayload,
  SyncPending
} from "./purchase-schemas.ts"
import { RequiredPermission } from "./security.ts"

/** `/api/mobile/purchases`: availability, client sync, and the workspace's purchases. */
export class MobilePurchasesGroup extends HttpApiGroup.make("mobilePurchases")
  .add(
    HttpApiEndpoint.get("availability", "/purchases/availability", {
      query: AvailabilityQuery,
      success: AvailabilityView,
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotate(RequiredPermission, "purchases.read").annotateMerge(docs(
      "Can this member buy here?",
      "`reason` is `platform_not_supported`, `store_not_configured`, `role_forbidden` (buying is for admins and owners) or " +
        "`managed_elsewhere` (the workspace holds a subscription from the other store). `appAccountToken` goes to the store."
    )),
    HttpApiEndpoint.post("sync", "/purchases/sync", {
      headers: { "idempotency-key": Schema.optional(IdempotencyKey) },
      payload: SyncPayload,
      success: [SyncedView, SyncPending],
      error: [
        Problems.InvalidInput,
        PurchaseProblems.InvalidSignature,
        Problems.Forbidden,
        PurchaseProblems.OwnedElsewhere,
        PurchaseProblems.StoreNotConfigured,
        Problems.IdempotencyKeyReused,
        ...serverErrors
      ]
    }).annotate(RequiredPermission, "purchases.manage").annotateMerge(docs(
      "Sync a purchase",
      "Verifies the purchase with the store, binds it to the workspace and grants its features in one transaction; a " +
        "Google purchase is acknowledged after that. 202 `{ status: \"pending\", syncId, retryAfterSeconds }` with `Retry-After` " +
        "when the store cannot be reached: the sync is queued and retried (nothing is revoked); follow it at " +
        "`GET /api/mobile/purchases/syncs/{syncId}`. A purchase bound to another workspace is 409 `purchase_owned_elsewhere`."
    )),
    HttpApiEndpoint.get("syncStatus", "/purchases/syncs/:id", {
      params: { id: StoreNotificationId },
      success: PurchaseSyncView,
      error: [Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "purchases.read").annotateMerge(docs(
      "A queued sync",
      "A sync that answered 202: `pending` (with `Retry-After`) until the worker has asked the store, then `processed` with its " +
        "`outcome`. 404 for another workspace's."
    )),
    HttpApiEndpoint.get("list", "/purchases", {
      query: PageQuery,
      success: PurchaseList,
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotate(RequiredPermission, "purchases.read").annotateMerge(docs("The workspace's purchases", "Newest first.")),
    HttpApiEndpoint.get("get", "/purchases/:id", {
      params: { id: PurchaseId },
      success: PurchaseView,
      error: [Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "purchases.read").annotateMerge(docs("One purchase", "404 for another workspace's purchase."))
  )
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({ title: "mobile: purchases", description: "In-app purchases of the active workspace." }))
{}

/** `GET /api/v1/purchases`: the read-only mirror for integrators (scope `read`). */
export class V1PurchasesGroup extends HttpApiGroup.make("v1Purchases")
  .add(
    HttpApiEndpoint.get("list", "/purchases", {
      query: PageQuery,
      success: PurchaseList,
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotate(RequiredPermission, "purchases.read").annotateMerge(docs("The workspace's purchases", "Newest first. Needs scope `read`."))
  )
  .pipe(v1Routes(["api_key"]))
  .annotateMerge(OpenApi.annotations({ title: "v1: purchases", description: "Read-only mirror of the workspace's in-app purchases." }))
{}

/** Store notifications: no session; the signature is the credential. Answered fast; a worker processes them. */
export class StoreNotificationsGroup extends HttpApiGroup.make("storeNotifications")
  .add(
    HttpApiEndpoint.post("apple", "/apple", {
      payload: AppleNotificationBody,
      success: Schema.Struct({ received: Schema.Boolean }),
      error: [Problems.InvalidInput, PurchaseProblems.InvalidSignature, ...serverErrors]
    }).annotateMerge(docs("App Store Server Notifications V2", "The `signedPayload` JWS is verified up to Apple's root; bad → 401 `invalid_signature`.")),
    HttpApiEndpoint.post("google", "/google", {
      headers: { authorization: Schema.optional(Schema.String) },
      payload: GooglePushBody,
      success: Schema.Struct({ received: Schema.Boolean }),
      error: [Problems.InvalidInput, PurchaseProblems.InvalidSignature, ...serverErrors]
    }).annotateMerge(docs("Google Play RTDN over Pub/Sub push", "The OIDC bearer token is verified; the purchase is then read back from Google."))
  )
  .pipe(publicRoutes("/api/store-notifications"))
  .annotateMerge(OpenApi.annotations({ title: "store notifications" }))
{}
