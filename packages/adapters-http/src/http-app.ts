import { Layer } from "effect"
import { HttpApiBuilder, type HttpApi, type HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import { Api, docsPath, openApiPath } from "./api/api.ts"
import { AiTasksHandlers } from "./handlers/ai-tasks-handlers.ts"
import { AuthHandlers, AuthSessionHandlers } from "./handlers/auth-handlers.ts"
import { MobileDevelopersHandlers } from "./handlers/mobile-developers-handlers.ts"
import { MobileSessionHandlers } from "./handlers/mobile-session-handlers.ts"
import { MobileTeamHandlers } from "./handlers/mobile-team-handlers.ts"
import { MobileWebhooksHandlers } from "./handlers/mobile-webhooks-handlers.ts"
import { MobileWorkspaceHandlers } from "./handlers/mobile-workspace-handlers.ts"
import { defaultSignInRateLimits, type SignInRateLimits, SignInThrottle } from "./handlers/sign-in-throttle.ts"
import { MobilePurchasesHandlers, StoreNotificationsHandlers, V1PurchasesHandlers } from "./handlers/purchases-handlers.ts"
import { V1Handlers } from "./handlers/v1-handlers.ts"
import { WebhooksHandlers } from "./handlers/webhooks-handlers.ts"
import { type EnvelopeOptions, makeEnvelope } from "./http/envelope.ts"
import { docsLayer } from "./http/offline-docs.ts"
import { makeRouteTable, routesOf } from "./http/route-table.ts"
import { AuthenticationLive } from "./middleware/authentication-live.ts"
import { AuthorizationLive } from "./middleware/authorization-live.ts"
import { KeyOrSessionAuthenticationLive, KeyOrSessionAuthorizationLive } from "./middleware/key-or-session-live.ts"
import { MemberAuthorizationLive } from "./middleware/member-authorization-live.ts"
import { NoStoreLive } from "./middleware/no-store-live.ts"
import { KeyOrSessionRateLimitLive, RateLimiterMemory, RateLimitLive, type RateLimitOptions } from "./middleware/rate-limit-live.ts"
import { MemberAuthenticationLive, SessionAuthenticationLive } from "./middleware/session-authentication-live.ts"

/** What the HTTP adapter is configured with. */
export interface HttpAppOptions extends EnvelopeOptions {
  /** Requests per API key (or per session on `/api/v1/ai-tasks`) and window. */
  readonly rateLimit: RateLimitOptions
  /** Sign-in attempts per email and per client address; 10 and 30 a minute by default. */
  readonly signInRateLimit?: SignInRateLimits | undefined
}

/**
 * The HttpApi middleware — API-key and session authentication, rate limits, scopes and roles, `no-store`, decode
 * failures as 400 problems — and the sign-in throttle, all counting in one per-process memory `RateLimiter`.
 */
export const ApiMiddlewareLayer = (options: HttpAppOptions) =>
  Layer.mergeAll(
    AuthenticationLive,
    AuthorizationLive,
    RateLimitLive(options.rateLimit),
    KeyOrSessionAuthenticationLive,
    KeyOrSessionAuthorizationLive,
    KeyOrSessionRateLimitLive(options.rateLimit),
    SessionAuthenticationLive,
    MemberAuthenticationLive,
    MemberAuthorizationLive,
    NoStoreLive,
    SignInThrottle.layer(options.signInRateLimit ?? defaultSignInRateLimits),
    HttpApiMiddleware.layerProblemDetails({ includeDetails: true })
  ).pipe(Layer.provide(RateLimiterMemory))

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
export const ApiHandlers = Layer.mergeAll(
  V1Handlers,
  WebhooksHandlers,
  AiTasksHandlers,
  AuthHandlers,
  AuthSessionHandlers,
  MobileSessionHandlers,
  MobileWorkspaceHandlers,
  MobileTeamHandlers,
  MobileDevelopersHandlers,
  MobileWebhooksHandlers,
  V1PurchasesHandlers,
  MobilePurchasesHandlers,
  StoreNotificationsHandlers
)

/**
 * Every route of the Atrium HTTP interface (`/api/v1`, `/api/auth`, `/api/mobile`, `/api/v1/openapi`, `/api/docs`) as an
 * `HttpRouter` layer. Needs the domain services `ApiKeys`, `Workspaces`, `Entitlements`, `ModelCatalog`,
 * `WebhookEndpoints`, `AiTasks`, `Usage`, the identity services `Accounts`, `Members`, `Invitations`, `Organization`,
 * `Appearance`, `AuditTrail` (`identityServices()`), the `EventOutbox` port, and the platform services a server layer brings.
 */
export const HttpAppLayer = (options: HttpAppOptions) => makeHttpAppLayer(Api, ApiHandlers, options)
