import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { memberRoutes, v1Routes } from "./front-door.ts"
import { scheduleOperations } from "./schedule-operations.ts"
import { SchedulePreview, SchedulePreviewQuery } from "./schedule-schemas.ts"
import { RequiredPermission } from "./security.ts"

/** Schedules of `/api/v1`, behind API keys. */
export class SchedulesGroup extends HttpApiGroup.make("schedules")
  .add(...scheduleOperations("/schedules"))
  .pipe(v1Routes(["api_key"]))
  .annotateMerge(OpenApi.annotations({
    title: "schedules",
    description: "Recurring AI tasks on a cron in an IANA time zone, fired exactly once per occurrence across processes."
  }))
{}

/** The very operations and schemas of `/api/v1` schedules behind member sessions (members read, admins change), plus the preview. */
export class MobileSchedulesGroup extends HttpApiGroup.make("mobileSchedules")
  .add(
    HttpApiEndpoint.get("previewSchedule", "/schedules/preview", {
      query: SchedulePreviewQuery,
      success: SchedulePreview,
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotate(RequiredPermission, "schedules.read").annotateMerge(docs(
      "Preview a cron",
      "The next 5 instants of `cron` in `timezone`, by the schedules' daylight saving rule; a bad cron or " +
        "zone is 400 with `errors[].path` naming it. Needs `schedules.read` (role member)."
    ))
  )
  .add(...scheduleOperations("/schedules"))
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({
    title: "mobile: schedules",
    description: "The same operations and payloads as `/api/v1/schedules…`, for members (to read) and admins (to change)."
  }))
{}
