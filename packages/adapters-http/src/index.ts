/**
 * @atrium/adapters-http — the HTTP contract (re-exported from `@atrium/client`, where it lives and is published),
 * the server that implements it (one gate per kind of route, then the envelope) and the outbound
 * clients (`@atrium/adapters-http/outbound`).
 */
export * from "@atrium/client"
export { type EnvelopeOptions, makeEnvelope } from "./server/envelope.ts"
export { AiTasksHandlers } from "./server/handlers/ai-tasks-handlers.ts"
export { AuthHandlers, AuthSessionHandlers } from "./server/handlers/auth-handlers.ts"
export { MobileDomainsHandlers, V1DomainsHandlers } from "./server/handlers/domains-handlers.ts"
export { MobileDevelopersHandlers } from "./server/handlers/mobile-developers-handlers.ts"
export { MobileSessionHandlers } from "./server/handlers/mobile-session-handlers.ts"
export { MobileTeamHandlers } from "./server/handlers/mobile-team-handlers.ts"
export { MobileWorkspaceHandlers } from "./server/handlers/mobile-workspace-handlers.ts"
export { V1Handlers } from "./server/handlers/v1-handlers.ts"
export { MobileWebhooksHandlers, WebhooksHandlers } from "./server/handlers/webhooks-handlers.ts"
export {
  ApiHandlers,
  ApiMiddlewareLayer,
  HttpAppLayer,
  HttpAppLayerMemory,
  type HttpAppOptions,
  makeHttpAppLayer,
  routerConfig
} from "./server/http-app.ts"
export { serveLean } from "./server/serve-lean.ts"
export { makeRateLimitCheck, type RateLimitCheck, RateLimiterMemory, type RateLimitOptions } from "./server/rate-limit.ts"
export { type KnownRoute, makeRouteTable, type RouteTable, routesOf } from "./server/route-table.ts"
export { defaultThrottleLimits, type ThrottleLimits, Throttles } from "./server/throttles.ts"
export { type AccessLogEntry, AccessLogSink } from "./server/access-log.ts"
