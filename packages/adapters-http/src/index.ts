/** @atrium/adapters-http — the HTTP contract (`Api`), its middleware and handlers, served as one `HttpRouter` layer. */
export * from "./api/index.ts"
export { AiTasksHandlers } from "./handlers/ai-tasks-handlers.ts"
export { AuthHandlers, AuthSessionHandlers } from "./handlers/auth-handlers.ts"
export {
  type Caller,
  callerOf,
  callerOfAny,
  callerOfMember,
  currentAnyCaller,
  currentCaller,
  currentMemberCaller
} from "./handlers/caller.ts"
export { MobileDevelopersHandlers } from "./handlers/mobile-developers-handlers.ts"
export { MobileSessionHandlers } from "./handlers/mobile-session-handlers.ts"
export { MobileTeamHandlers } from "./handlers/mobile-team-handlers.ts"
export { MobileWebhooksHandlers } from "./handlers/mobile-webhooks-handlers.ts"
export { MobileWorkspaceHandlers } from "./handlers/mobile-workspace-handlers.ts"
export { defaultSignInRateLimits, type SignInRateLimits, SignInThrottle } from "./handlers/sign-in-throttle.ts"
export { type AccountMailRateLimits, AccountMailThrottle, defaultAccountMailRateLimits } from "./handlers/account-mail-throttle.ts"
export { V1Handlers } from "./handlers/v1-handlers.ts"
export { makeWebhookActions, type WebhookActions } from "./handlers/webhook-actions.ts"
export { WebhooksHandlers } from "./handlers/webhooks-handlers.ts"
export type { EnvelopeOptions } from "./http/envelope.ts"
export { makeEnvelope } from "./http/envelope.ts"
export { type KnownRoute, makeRouteTable, type RouteTable, routesOf } from "./http/route-table.ts"
export { ApiHandlers, ApiMiddlewareLayer, HttpAppLayer, type HttpAppOptions, makeHttpAppLayer } from "./http-app.ts"
export { AuthenticationLive } from "./middleware/authentication-live.ts"
export { AuthorizationLive } from "./middleware/authorization-live.ts"
export { KeyOrSessionAuthenticationLive, KeyOrSessionAuthorizationLive } from "./middleware/key-or-session-live.ts"
export { MemberAuthorizationLive } from "./middleware/member-authorization-live.ts"
export { NoStoreLive } from "./middleware/no-store-live.ts"
export {
  KeyOrSessionRateLimitLive,
  makeRateLimitCheck,
  type RateLimitCheck,
  RateLimiterMemory,
  RateLimitLive,
  RateLimitMemory,
  type RateLimitOptions
} from "./middleware/rate-limit-live.ts"
export { MemberAuthenticationLive, SessionAuthenticationLive } from "./middleware/session-authentication-live.ts"
