import { Layer } from "effect"
import { HttpApiBuilder, type HttpApi, type HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import { Api, docsPath, openApiPath } from "./api/api.ts"
import { AiTasksHandlers } from "./handlers/ai-tasks-handlers.ts"
import { V1Handlers } from "./handlers/v1-handlers.ts"
import { WebhooksHandlers } from "./handlers/webhooks-handlers.ts"
import { type EnvelopeOptions, makeEnvelope } from "./http/envelope.ts"
import { docsLayer } from "./http/offline-docs.ts"
import { makeRouteTable, routesOf } from "./http/route-table.ts"
import { AuthenticationLive } from "./middleware/authentication-live.ts"
import { AuthorizationLive } from "./middleware/authorization-live.ts"
import { RateLimitMemory, type RateLimitOptions } from "./middleware/rate-limit-live.ts"

/** What the HTTP adapter is configured with. */
export interface HttpAppOptions extends EnvelopeOptions {
  readonly rateLimit: RateLimitOptions
}

/** The HttpApi middleware: authentication, per-key rate limit, scopes, and decode failures as 400 problems. */
export const ApiMiddlewareLayer = (options: HttpAppOptions) =>
  Layer.mergeAll(
    AuthenticationLive,
    AuthorizationLive,
    RateLimitMemory(options.rateLimit),
    HttpApiMiddleware.layerProblemDetails({ includeDetails: true })
  )

/**
 * The routes of any API that uses our middleware, served with its OpenAPI document, docs page and envelope.
 * `handlers` implements every group of `api` (tests add test-only groups this way).
 */
export const makeHttpAppLayer = <Id extends string, Groups extends HttpApiGroup.Constraint, HA, HE, HR>(
  api: HttpApi.HttpApi<Id, Groups>,
  handlers: Layer.Layer<HA, HE, HR>,
  options: HttpAppOptions
) => {
  const routes = makeRouteTable([
    ...routesOf(api),
    { method: "GET", path: openApiPath },
    { method: "GET", path: docsPath }
  ])
  return Layer.mergeAll(
    HttpApiBuilder.layer(api, { openapiPath: openApiPath }),
    docsLayer(api, docsPath),
    makeEnvelope(routes, options)
  ).pipe(
    Layer.provide(handlers),
    Layer.provide(ApiMiddlewareLayer(options))
  )
}

/** The handlers of every group of `Api`. */
export const ApiHandlers = Layer.mergeAll(V1Handlers, WebhooksHandlers, AiTasksHandlers)

/**
 * Every route of the Atrium HTTP interface (`/api/v1`, `/api/v1/openapi`, `/api/docs`) as an `HttpRouter` layer.
 * Needs the domain services `ApiKeys`, `Workspaces`, `Entitlements`, `ModelCatalog`, `WebhookEndpoints`, `AiTasks`,
 * `Usage`, the `EventOutbox` port, and the platform services a server layer brings.
 */
export const HttpAppLayer = (options: HttpAppOptions) => makeHttpAppLayer(Api, ApiHandlers, options)
