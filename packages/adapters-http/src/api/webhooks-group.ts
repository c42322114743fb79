import { HttpApi, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { Authentication } from "./authentication.ts"
import { Authorization } from "./authorization.ts"
import { RateLimit } from "./rate-limit.ts"
import { strictPayloads } from "./strict-payloads.ts"
import { v1WebhookPaths, webhookOperations } from "./webhook-operations.ts"

/** Webhook endpoints, deliveries and events of `/api/v1`, behind API keys. */
export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(...webhookOperations(v1WebhookPaths))
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  // Listed innermost first: authentication runs outermost, then the rate limit, then the scope check.
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(Authorization)
  .middleware(RateLimit)
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotateMerge(OpenApi.annotations({
    title: "webhooks",
    description: "Subscribe endpoints to events, inspect and replay deliveries. Deliveries follow Standard Webhooks."
  }))
{}
