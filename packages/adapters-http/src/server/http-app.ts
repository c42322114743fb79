import { Layer } from "effect"
import { HttpApiBuilder, type HttpApi, type HttpApiGroup } from "effect/http-api"
import { Api } from "@atrium/client"
import { ConsoleLayer, consoleRoutes } from "./console/console-routes.ts"
import { type EnvelopeOptions, makeEnvelope } from "./envelope.ts"
import { GatesLive } from "./gates.ts"
import { AiTasksHandlers } from "./handlers/ai-tasks-handlers.ts"
import { AuthHandlers, AuthSessionHandlers } from "./handlers/auth-handlers.ts"
import { MobileDomainsHandlers, V1DomainsHandlers } from "./handlers/domains-handlers.ts"
import { MobileDevelopersHandlers } from "./handlers/mobile-developers-handlers.ts"
import { MobileFeedbackHandlers, MobilePushHandlers } from "./handlers/mobile-feedback-handlers.ts"
import { MobileSessionHandlers } from "./handlers/mobile-session-handlers.ts"
import { MobileTeamHandlers } from "./handlers/mobile-team-handlers.ts"
import { MobileWorkspaceHandlers } from "./handlers/mobile-workspace-handlers.ts"
import { MobileSchedulesHandlers, SchedulesHandlers } from "./handlers/schedules-handlers.ts"
import { MobilePurchasesHandlers, StoreNotificationsHandlers, V1PurchasesHandlers } from "./handlers/purchases-handlers.ts"
import { V1Handlers } from "./handlers/v1-handlers.ts"
import { MobileWebhooksHandlers, WebhooksHandlers } from "./handlers/webhooks-handlers.ts"
import { docsLayer, docsRoutes } from "./offline-docs.ts"
import { RateLimiterMemory, type RateLimitOptions } from "./rate-limit.ts"
import { type KnownRoute, makeRouteTable, routesOf } from "./route-table.ts"
import { defaultThrottleLimits, type ThrottleLimits, Throttles } from "./throttles.ts"

/**
 * Options for `HttpRouter.serve` of the app: path parameters up to 8 KiB reach the route (find-my-way's default of
 * 100 made a long id an unknown route), so a malformed id is a 404 after authentication, never a 405.
 */
export const routerConfig = { maxParamLength: 8192 } as const

/** What the HTTP adapter is configured with. */
export interface HttpAppOptions extends EnvelopeOptions {
  /** Requests per principal (API key or session) and window. */
  readonly rateLimit: RateLimitOptions
  /** Attempts on sign-in, sign-up, refresh and invitation accept (`defaultThrottleLimits` for what is not given). */
  readonly throttles?: Partial<ThrottleLimits> | undefined
}

/**
 * The HttpApi middleware — the contract's gates, one per kind of route (`/api/v1`, `/api/mobile`, session routes,
 * public routes) — and the throttles, all counting in the app's `RateLimiter`: bring `RateLimiterMemory` for one
 * process, a Redis-backed one to share the counts among processes.
 */
export const ApiMiddlewareLayer = (options: HttpAppOptions) =>
  Layer.merge(GatesLive(options.rateLimit), Throttles.layerWith({ ...defaultThrottleLimits, ...options.throttles }))

/** Routes served beside the API (pages), with the paths they answer so the envelope tells 404 from 405. */
export interface ExtraRoutes<E, R> {
  readonly routes: ReadonlyArray<KnownRoute>
  readonly layer: Layer.Layer<never, E, R>
}

const noExtraRoutes: ExtraRoutes<never, never> = { routes: [], layer: Layer.empty }

/**
 * The routes of any API behind our gates, served with its OpenAPI document, docs page and envelope.
 * `handlers` implements every group of `api` (tests add test-only groups this way); `extra` adds pages.
 */
export const makeHttpAppLayer = <Id extends string, Groups extends HttpApiGroup.Constraint, HA, HE, HR, XE = never, XR = never>(
  api: HttpApi.HttpApi<Id, Groups>,
  handlers: Layer.Layer<HA, HE, HR>,
  options: HttpAppOptions,
  extra?: ExtraRoutes<XE, XR>
) => {
  const pages = extra ?? noExtraRoutes
  const routes = makeRouteTable([...routesOf(api), ...docsRoutes, ...pages.routes])
  return Layer.mergeAll(
    HttpApiBuilder.layer(api),
    docsLayer(api),
    pages.layer,
    makeEnvelope(routes, options)
  ).pipe(
    Layer.provide(handlers),
    Layer.provide(ApiMiddlewareLayer(options))
  )
}

/** The handlers of every group of `Api`. */
export const ApiHandlers = Layer.mergeAll(
  V1Handlers,
  V1DomainsHandlers,
  WebhooksHandlers,
  MobileWebhooksHandlers,
  AiTasksHandlers,
  SchedulesHandlers,
  AuthHandlers,
  AuthSessionHandlers,
  MobileSessionHandlers,
  MobileWorkspaceHandlers,
  MobileTeamHandlers,
  MobileDevelopersHandlers,
  MobileSchedulesHandlers,
  V1PurchasesHandlers,
  MobilePurchasesHandlers,
  StoreNotificationsHandlers,
  MobileDomainsHandlers,
  MobileFeedbackHandlers,
  MobilePushHandlers
)

/**
 * Every route of the Atrium HTTP interface (`/api/v1`, `/api/auth`, `/api/mobile`, the OpenAPI documents `/api/v1/openapi`
 * and `/api/mobile/openapi`, `/api/docs`) and the Settings → Developers console (`/settings/developers`) as an
 * `HttpRouter` layer. Needs the domain services (`DomainServices`,
 * `AiServices`, `IdentityServices`, `CustomDomains`, `Schedules`, `Purchases`), the `EventOutbox`
 * port, a `RateLimiter`, and the platform services a server layer brings.
 */
export const HttpAppLayer = (options: HttpAppOptions) =>
  makeHttpAppLayer(Api, ApiHandlers, options, { routes: consoleRoutes, layer: ConsoleLayer })

/** `HttpAppLayer` counting its limits in this process's memory. */
export const HttpAppLayerMemory = (options: HttpAppOptions) => HttpAppLayer(options).pipe(Layer.provide(RateLimiterMemory))
