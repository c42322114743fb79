import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { MemberAuthorization } from "./member-authorization.ts"
import { NoStore } from "./no-store.ts"
import { ConflictProblem } from "./business-problems.ts"
import { ForbiddenProblem } from "./identity-problems.ts"
import { InsufficientScopeProblem, InvalidRequestProblem, NotFoundProblem, serverProblems } from "./problems.ts"
import { RequiredAction } from "./required-action.ts"
import { scheduleOperations } from "./schedule-operations.ts"
import { SchedulePreview, SchedulePreviewQuery } from "./schedule-schemas.ts"
import { MemberAuthentication } from "./session-authentication.ts"
import { strictPayloads } from "./strict-payloads.ts"

/** The `/api/v1` schedule operations behind member sessions (member to read, admin to change), plus the preview. */
export class MobileSchedulesGroup extends HttpApiGroup.make("mobileSchedules")
  .add(
    HttpApiEndpoint.get("previewSchedule", "/schedules/preview", {
      query: SchedulePreviewQuery,
      success: SchedulePreview,
      error: [InvalidRequestProblem, ConflictProblem, NotFoundProblem, ForbiddenProblem, InsufficientScopeProblem, ...serverProblems]
    }).annotate(RequiredAction, "workspace.read").annotateMerge(OpenApi.annotations({
      summary: "Preview a cron",
      description: "The next 5 instants of `cron` in `timezone`, by the schedules' daylight saving rule; a bad cron or " +
        "zone is 400 with `errors[].path` naming it."
    }))
  )
  .add(...scheduleOperations("/schedules"))
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(MemberAuthorization)
  .middleware(MemberAuthentication)
  .middleware(NoStore)
  .prefix("/api/mobile")
  .annotateMerge(OpenApi.annotations({
    title: "mobile: schedules",
    description: "The same operations and payloads as `/api/v1/schedules…`; the scope notes do not apply (members read, admins change)."
  }))
{}
