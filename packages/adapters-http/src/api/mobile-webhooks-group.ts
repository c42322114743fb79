import { HttpApi, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { MemberAuthorization } from "./member-authorization.ts"
import { NoStore } from "./no-store.ts"
import { RequiredAction } from "./required-action.ts"
import { MemberAuthentication } from "./session-authentication.ts"
import { strictPayloads } from "./strict-payloads.ts"
import { type WebhookPaths, webhookOperations } from "./webhook-operations.ts"

/** The `/api/mobile` paths of the webhook operations. */
export const mobileWebhookPaths: WebhookPaths = {
  endpoints: "/webhooks",
  deliveries: "/webhooks/deliveries",
  events: "/webhooks/events",
  eventTypes: "/webhooks/event-types"
}

/**
 * The very operations and schemas of `/api/v1` webhooks, behind member sessions. Reading them is managing them too
 * (admins and owners): endpoint settings and delivery logs are not for every member.
 */
export class MobileWebhooksGroup extends HttpApiGroup.make("mobileWebhooks")
  .add(...webhookOperations(mobileWebhookPaths))
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .annotate(RequiredAction, "webhook.manage")
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(MemberAuthorization)
  .middleware(MemberAuthentication)
  .middleware(NoStore)
  .prefix("/api/mobile")
  .annotateMerge(OpenApi.annotations({
    title: "mobile: webhooks",
    description: "The same operations and payloads as `/api/v1/webhook-endpoints…`; the scope notes do not apply (role `webhook.manage` does)."
  }))
{}
