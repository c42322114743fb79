import { FeatureRequestId, InstallationId, NotificationPreferences, PushDeviceRegistration } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IdempotencyKey } from "./ai-task-schemas.ts"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { CreateFeatureRequest, FeatureRequestCreated, FeatureRequestList, FeatureRequestQuery, FeatureRequestView } from "./feedback-schemas.ts"
import { memberRoutes } from "./front-door.ts"
import { PageQuery } from "./page-query.ts"
import { NotificationPreferencesView, PushDeviceList, PushDeviceView } from "./push-schemas.ts"
import { RequiredPermission } from "./security.ts"

const requestId = { id: FeatureRequestId }

/** The public feature-request board: every member reads it, submits and votes. */
export class MobileFeedbackGroup extends HttpApiGroup.make("mobileFeedback")
  .add(
    HttpApiEndpoint.get("listFeatureRequests", "/feature-requests", {
      query: { ...PageQuery, ...FeatureRequestQuery },
      success: FeatureRequestList,
      error: serverErrors
    }).annotate(RequiredPermission, "workspace.read").annotateMerge(docs("The feature-request board", "One public board for every member of the service; merged requests are left out unless asked for.")),
    HttpApiEndpoint.post("createFeatureRequest", "/feature-requests", {
      headers: { "idempotency-key": Schema.optional(IdempotencyKey) },
      payload: CreateFeatureRequest,
      success: FeatureRequestCreated.pipe(HttpApiSchema.status(201)),
      error: [Problems.InvalidInput, Problems.IdempotencyKeyReused, Problems.RateLimited, ...serverErrors]
    }).annotate(RequiredPermission, "feature_requests.submit").annotateMerge(docs(
      "Submit a feature request",
      "At most 10 per user in any 24 hours (429). The answer lists existing requests with similar titles. The same `Idempotency-Key` replays the request."
    )),
    HttpApiEndpoint.get("getFeatureRequest", "/feature-requests/:id", {
      params: requestId,
      success: FeatureRequestView,
      error: [Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "workspace.read").annotateMerge(docs("One feature request", "With whether the member voted for it.")),
    HttpApiEndpoint.put("voteFeatureRequest", "/feature-requests/:id/vote", {
      params: requestId,
      success: FeatureRequestView,
      error: [Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "feature_requests.submit").annotateMerge(docs("Vote", "Idempotent: one vote per user.")),
    HttpApiEndpoint.delete("unvoteFeatureRequest", "/feature-requests/:id/vote", {
      params: requestId,
      success: FeatureRequestView,
      error: [Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "feature_requests.submit").annotateMerge(docs("Withdraw a vote", "Idempotent."))
  )
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({ title: "mobile: feature requests", description: "Ask for features and vote." }))
{}

/** The signed-in user's own push devices and notification preferences; nobody reaches another user's. */
export class MobilePushGroup extends HttpApiGroup.make("mobilePush")
  .add(
    HttpApiEndpoint.get("listPushDevices", "/push-devices", {
      success: PushDeviceList,
      error: serverErrors
    }).annotateMerge(docs("My push devices", "The devices registered by the signed-in user.")),
    HttpApiEndpoint.put("putPushDevice", "/push-devices/:installationId", {
      params: { installationId: InstallationId },
      payload: PushDeviceRegistration,
      success: PushDeviceView,
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotateMerge(docs(
      "Register this device",
      "Upserts the installation for the signed-in user; a token registered by another user moves to this one. The device ends with this session (sign-out removes it)."
    )),
    HttpApiEndpoint.delete("deletePushDevice", "/push-devices/:installationId", {
      params: { installationId: InstallationId },
      error: serverErrors
    }).annotateMerge(docs("Unregister a device", "Idempotent (204).")),
    HttpApiEndpoint.get("getNotificationPreferences", "/notification-preferences", {
      success: NotificationPreferencesView,
      error: serverErrors
    }).annotateMerge(docs("Notification preferences", "Per category, on until turned off.")),
    HttpApiEndpoint.put("putNotificationPreferences", "/notification-preferences", {
      payload: NotificationPreferences,
      success: NotificationPreferencesView,
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotateMerge(docs("Set notification preferences", "Every category, each true or false."))
  )
  .annotate(RequiredPermission, "workspace.read")
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({ title: "mobile: push", description: "Devices and what they are told about." }))
{}
