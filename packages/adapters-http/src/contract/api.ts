import { HttpApi, OpenApi } from "effect/http-api"
import { AiTasksGroup } from "./ai-tasks-group.ts"
import { AuthGroup, AuthSessionGroup } from "./auth-group.ts"
import { MobileDevelopersGroup } from "./mobile-developers-group.ts"
import { MobileDomainsGroup } from "./mobile-domains-group.ts"
import { MobileFeedbackGroup, MobilePushGroup } from "./mobile-feedback-group.ts"
import { MobileSessionGroup } from "./mobile-session-group.ts"
import { MobileTeamGroup } from "./mobile-team-group.ts"
import { MobileWorkspaceGroup } from "./mobile-workspace-group.ts"
import { MobileSchedulesGroup, SchedulesGroup } from "./schedules-groups.ts"
import { MobilePurchasesGroup, StoreNotificationsGroup, V1PurchasesGroup } from "./purchases-group.ts"
import { V1DomainsGroup } from "./v1-domains-group.ts"
import { V1Group } from "./v1-group.ts"
import { MobileWebhooksGroup, WebhooksGroup } from "./webhooks-groups.ts"

/** The Atrium HTTP contract: import it (`@atrium/adapters-http/contract`) to build clients; `server/` implements it. */
export class Api extends HttpApi.make("atrium")
  .add(V1Group)
  .add(V1DomainsGroup)
  .add(WebhooksGroup)
  .add(AiTasksGroup)
  .add(SchedulesGroup)
  .add(AuthGroup)
  .add(AuthSessionGroup)
  .add(MobileSessionGroup)
  .add(MobileWorkspaceGroup)
  .add(MobileTeamGroup)
  .add(MobileDevelopersGroup)
  .add(MobileWebhooksGroup)
  .add(MobileSchedulesGroup)
  .add(V1PurchasesGroup)
  .add(MobilePurchasesGroup)
  .add(StoreNotificationsGroup)
  .add(MobileDomainsGroup)
  .add(MobileFeedbackGroup)
  .add(MobilePushGroup)
  .annotateMerge(OpenApi.annotations({
    title: "Atrium API",
    version: "1",
    description: "Every failure is an RFC 9457 `application/problem+json` body with a stable `code` and the `requestId` " +
      "(also the `x-request-id` header). Codes: 400 `invalid_request`, `invalid_token`; 401 `missing_credentials`, `malformed_credentials`, " +
      "`invalid_api_key`, `api_key_revoked`, `api_key_expired`, `session_expired` (refresh and retry), `invalid_session` " +
      "(sign in again), `invalid_credentials`; 402 `usage_cap_reached`, `insufficient_credits`; " +
      "403 `insufficient_scope`, `forbidden`, `not_entitled`; 404 `not_found`, `route_not_found`; 405 `method_not_allowed`; " +
      "409 `conflict`, `email_taken`, `email_already_verified`, `idempotency_key_reused`, `purchase_owned_elsewhere`, `store_not_configured`, `domain_taken`; 412 `precondition_failed`; 413 `payload_too_large`; " +
      "415 `unsupported_media_type`; 428 `precondition_required`; 429 `rate_limited`; 500 `internal_error`; " +
      "503 `unavailable` (never a 401: a failed lookup proves nothing). `/api/v1` takes API keys (a session token there is " +
      "401 `malformed_credentials`); `/api/auth` and `/api/mobile` take member sessions (an API key there is 401 " +
      "`malformed_credentials`); `/api/v1/ai-tasks` takes either; `/api/store-notifications` takes the stores' signatures " +
      "(401 `invalid_signature`)."
  }))
{}
