import { CreateScheduleInput, ScheduleId, ScheduleRunView, ScheduleView, UpdateScheduleInput } from "@atrium/domain"
import { HttpApiEndpoint, HttpApiSchema } from "effect/http-api"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { PageQuery } from "./page-query.ts"
import { ScheduleList, ScheduleRunList } from "./schedule-schemas.ts"
import { RequiredPermission } from "./security.ts"

const scheduleId = { id: ScheduleId }
const notFound = [Problems.NotFound, ...serverErrors] as const
const reads = "Needs `schedules.read` (scope `read`; role member)."
const writes = "Needs `schedules.write` (scope `schedules:write`; role admin)."

/**
 * The schedule operations at `base` (`/schedules`). Every interface that manages schedules (`/api/v1` with API keys,
 * `/api/mobile` with sessions) builds its group from these, so operations, payloads and schemas are one definition.
 * Each names its `Permission`: a key needs `read` / `schedules:write`, a member the member / admin role.
 */
export const scheduleOperations = (base: `/${string}`) => [
  HttpApiEndpoint.get("listSchedules", base, {
    query: PageQuery,
    success: ScheduleList,
    error: serverErrors
  }).annotate(RequiredPermission, "schedules.read").annotateMerge(docs("List schedules", `The workspace's schedules, newest first. ${reads}`)),
  HttpApiEndpoint.post("createSchedule", base, {
    payload: CreateScheduleInput,
    success: ScheduleView.pipe(HttpApiSchema.status(201)),
    error: [Problems.InvalidInput, Problems.NotEntitled, Problems.Conflict, ...serverErrors]
  }).annotate(RequiredPermission, "schedules.write").annotateMerge(docs(
    "Create a schedule",
    "A 5-field cron read in the IANA `timezone` (a local time skipped by daylight saving runs at the first valid instant " +
      "after it; a repeated one runs once, at its first occurrence), and `task`, exactly the payload of " +
      "`POST /api/v1/ai-tasks`. Each occurrence submits the task as the creator, through the same entitlement, cap and " +
      "credit checks; a model the workspace is not entitled to is refused at once (403 `not_entitled`). A bad cron (at most 256 " +
      `characters) or zone is 400 naming the field; at most 50 per workspace (409 \`conflict\`). ${writes}`
  )),
  HttpApiEndpoint.get("getSchedule", `${base}/:id`, {
    params: scheduleId,
    success: ScheduleView,
    error: notFound
  }).annotate(RequiredPermission, "schedules.read").annotateMerge(docs("Read a schedule", reads)),
  HttpApiEndpoint.patch("updateSchedule", `${base}/:id`, {
    params: scheduleId,
    payload: UpdateScheduleInput,
    success: ScheduleView,
    error: [Problems.NotFound, Problems.InvalidInput, Problems.NotEntitled, ...serverErrors]
  }).annotate(RequiredPermission, "schedules.write").annotateMerge(docs(
    "Change a schedule",
    `Absent fields stay; \`enabled\` pauses or resumes; a new \`task\` is checked as at creation (403 \`not_entitled\`). ${writes}`
  )),
  HttpApiEndpoint.delete("deleteSchedule", `${base}/:id`, {
    params: scheduleId,
    error: notFound
  }).annotate(RequiredPermission, "schedules.write").annotateMerge(docs(
    "Delete a schedule",
    `Its runs go with it; tasks already submitted stay. ${writes}`
  )),
  HttpApiEndpoint.post("pauseSchedule", `${base}/:id/pause`, {
    params: scheduleId,
    success: ScheduleView,
    error: notFound
  }).annotate(RequiredPermission, "schedules.write").annotateMerge(docs("Pause a schedule", `Emits \`schedule.paused\` (\`manual\`). ${writes}`)),
  HttpApiEndpoint.post("resumeSchedule", `${base}/:id/resume`, {
    params: scheduleId,
    success: ScheduleView,
    error: notFound
  }).annotate(RequiredPermission, "schedules.write").annotateMerge(docs(
    "Resume a schedule",
    "Clears the failure count; the next run is the first occurrence after now. A schedule paused because its creator " +
      `left runs as the one resuming it. ${writes}`
  )),
  HttpApiEndpoint.post("runScheduleNow", `${base}/:id/run-now`, {
    params: scheduleId,
    success: ScheduleRunView.pipe(HttpApiSchema.status(202)),
    error: [Problems.NotFound, Problems.Conflict, ...serverErrors]
  }).annotate(RequiredPermission, "schedules.write").annotateMerge(docs(
    "Run a schedule now",
    "Fires once now under the same rules as an occurrence; answers the run (`started` with its task id, or `skipped` " +
      `with the reason). A paused schedule is 409 \`conflict\`. ${writes}`
  )),
  HttpApiEndpoint.get("listScheduleRuns", `${base}/:id/runs`, {
    params: scheduleId,
    query: PageQuery,
    success: ScheduleRunList,
    error: notFound
  }).annotate(RequiredPermission, "schedules.read").annotateMerge(docs(
    "List a schedule's runs",
    `Newest occurrence first, each with its task id and status. ${reads}`
  ))
] as const
