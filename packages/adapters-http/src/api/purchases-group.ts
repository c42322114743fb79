import { PurchaseId } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { IdempotencyKey } from "./ai-task-schemas.ts"
import { Authentication } from "./authentication.ts"
import { Authorization } from "./authorization.ts"
import { IdempotencyKeyReusedProblem } from "./business-problems.ts"
import { ForbiddenProblem } from "./identity-problems.ts"
import { MemberAuthorization } from "./member-authorization.ts"
import { NoStore } from "./no-store.ts"
import { PageQuery } from "./page-query.ts"
import { InvalidRequestProblem, NotFoundProblem, serverProblems } from "./problems.ts"
import { InvalidSignatureProblem, PurchaseOwnedElsewhereProblem, StoreNotConfiguredProblem } from "./purchase-problems.ts"
import {
  AppleNotificationBody,
  AvailabilityQuery,
  AvailabilityView,
  GooglePushBody,
  PurchaseList,
  PurchaseView,
  SyncedView,
  SyncPayload,
  SyncPending
} from "./purchase-schemas.ts"
import { RateLimit } from "./rate-limit.ts"
import { RequiredAction } from "./required-action.ts"
import { RequiredScope } from "./required-scope.ts"
import { MemberAuthentication } from "./session-authentication.ts"
import { strictPayloads } from "./strict-payloads.ts"

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/** `/api/mobile/purchases`: availability, client sync, and the workspace's purchases. */
export class MobilePurchasesGroup extends HttpApiGroup.make("mobilePurchases")
  .add(
    HttpApiEndpoint.get("availability", "/purchases/availability", {
      query: AvailabilityQuery,
      success: AvailabilityView,
      error: [InvalidRequestProblem, ...serverProblems]
    }).annotate(RequiredAction, "purchase.read").annotateMerge(docs(
      "Can this member buy here?",
      "`reason` is `platform_not_supported`, `store_not_configured`, `role_forbidden` (buying is for admins and owners) or " +
        "`managed_elsewhere` (the workspace holds a subscription from the other store). `appAccountToken` goes to the store."
    )),
    HttpApiEndpoint.post("sync", "/purchases/sync", {
      headers: { "idempotency-key": Schema.optional(IdempotencyKey) },
      payload: SyncPayload,
      success: [SyncedView, SyncPending],
      error: [
        InvalidRequestProblem,
        InvalidSignatureProblem,
        ForbiddenProblem,
        PurchaseOwnedElsewhereProblem,
        StoreNotConfiguredProblem,
        IdempotencyKeyReusedProblem,
        ...serverProblems
      ]
    }).annotate(RequiredAction, "purchase.manage").annotateMerge(docs(
      "Sync a purchase",
      "Verifies the purchase with the store, binds it to the workspace and grants its features in one transaction; a " +
        "Google purchase is acknowledged after that. 202 `{ status: \"pending\" }` when the store cannot be reached (retried " +
        "later; nothing is revoked). A purchase bound to another workspace is 409 `purchase_owned_elsewhere`."
    )),
    HttpApiEndpoint.get("list", "/purchases", {
      query: PageQuery,
      success: PurchaseList,
      error: [InvalidRequestProblem, ...serverProblems]
    }).annotate(RequiredAction, "purchase.read").annotateMerge(docs("The workspace's purchases", "Newest first.")),
    HttpApiEndpoint.get("get", "/purchases/:id", {
      params: { id: PurchaseId },
      success: PurchaseView,
      error: [NotFoundProblem, ...serverProblems]
    }).annotate(RequiredAction, "purchase.read").annotateMerge(docs("One purchase", "404 for another workspace's purchase."))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(MemberAuthorization)
  .middleware(MemberAuthentication)
  .middleware(NoStore)
  .prefix("/api/mobile")
  .annotateMerge(OpenApi.annotations({ title: "mobile: purchases", description: "In-app purchases of the active workspace." }))
{}

/** `GET /api/v1/purchases`: the read-only mirror for integrators (scope `read`). */
export class V1PurchasesGroup extends HttpApiGroup.make("v1Purchases")
  .add(
    HttpApiEndpoint.get("list", "/purchases", {
      query: PageQuery,
      success: PurchaseList,
      error: [InvalidRequestProblem, ...serverProblems]
    }).annotate(RequiredScope, "read").annotateMerge(docs("The workspace's purchases", "Newest first. Needs scope `read`."))
  )
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(Authorization)
  .middleware(RateLimit)
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotateMerge(OpenApi.annotations({ title: "v1: purchases" }))
{}

/** Store notifications: no session; the signature is the credential. Answered fast; a worker processes them. */
export class StoreNotificationsGroup extends HttpApiGroup.make("storeNotifications")
  .add(
    HttpApiEndpoint.post("apple", "/apple", {
      payload: AppleNotificationBody,
      success: Schema.Struct({ received: Schema.Boolean }),
      error: [InvalidRequestProblem, InvalidSignatureProblem, ...serverProblems]
    }).annotateMerge(docs("App Store Server Notifications V2", "The `signedPayload` JWS is verified up to Apple's root; bad → 401 `invalid_signature`.")),
    HttpApiEndpoint.post("google", "/google", {
      headers: { authorization: Schema.optional(Schema.String) },
      payload: GooglePushBody,
      success: Schema.Struct({ received: Schema.Boolean }),
      error: [InvalidRequestProblem, InvalidSignatureProblem, ...serverProblems]
    }).annotateMerge(docs("Google Play RTDN over Pub/Sub push", "The OIDC bearer token is verified; the purchase is then read back from Google."))
  )
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(NoStore)
  .prefix("/api/store-notifications")
  .annotateMerge(OpenApi.annotations({ title: "store notifications" }))
{}
