import { CreateScheduleInput, ScheduleId, ScheduleRunView, ScheduleView, UpdateScheduleInput } from "@atrium/domain"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { ConflictProblem } from "./business-problems.ts"
import { ForbiddenProblem } from "./identity-problems.ts"
import { PageQuery } from "./page-query.ts"
import { InsufficientScopeProblem, InvalidRequestProblem, NotFoundProblem, serverProblems } from "./problems.ts"
import { RequiredAction } from "./required-action.ts"
import { RequiredScope } from "./required-scope.ts"
import { ScheduleList, ScheduleRunList } from "./schedule-schemas.ts"

const scheduleId = { id: ScheduleId }
const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })
// The service checks permission itself; these are what it can answer besides the middleware's own refusals.
const refused = [InvalidRequestProblem, ConflictProblem, NotFoundProblem, ForbiddenProblem, InsufficientScopeProblem, ...serverProblems] as const

/**
 * The schedule operations at `base` (`/schedules`), mounted by `/api/v1` (scopes `read` / `schedules:write`) and
 * `/api/mobile` (member to read, admin to change): one definition of operations and payloads for both.
 */
export const scheduleOperations = (base: `/${string}`) => [
  HttpApiEndpoint.get("listSchedules", base, { query: PageQuery, success: ScheduleList, error: refused })
    .annotate(RequiredScope, "read").annotate(RequiredAction, "workspace.read")
    .annotateMerge(docs("List schedules", "The workspace's schedules, newest first. Needs scope `read`.")),
  HttpApiEndpoint.post("createSchedule", base, {
    payload: CreateScheduleInput,
    success: ScheduleView.pipe(HttpApiSchema.status(201)),
    error: refused
  }).annotate(RequiredScope, "schedules:write").annotate(RequiredAction, "schedule.manage").annotateMerge(docs(
    "Create a schedule",
    "A 5-field cron read in the IANA `timezone` (a local time skipped by daylight saving runs at the first valid instant " +
      "after it; a repeated one runs once, at its first occurrence), and `task`, exactly the payload of " +
      "`POST /api/v1/ai-tasks`. Each occurrence submits the task as the creator, through the same entitlement, cap and " +
      "credit checks. At most 50 per workspace (409 `conflict`). Needs scope `schedules:write`."
  )),
  HttpApiEndpoint.get("getSchedule", `${base}/:id`, { params: scheduleId, success: ScheduleView, error: refused })
    .annotate(RequiredScope, "read").annotate(RequiredAction, "workspace.read")
    .annotateMerge(docs("Read a schedule", "Needs scope `read`.")),
  HttpApiEndpoint.patch("updateSchedule", `${base}/:id`, {
    params: scheduleId,
    payload: UpdateScheduleInput,
    success: ScheduleView,
    error: refused
  }).annotate(RequiredScope, "schedules:write").annotate(RequiredAction, "schedule.manage")
    .annotateMerge(docs("Change a schedule", "Absent fields stay; `enabled` pauses or resumes. Needs scope `schedules:write`.")),
  HttpApiEndpoint.delete("deleteSchedule", `${base}/:id`, { params: scheduleId, error: refused })
    .annotate(RequiredScope, "schedules:write").annotate(RequiredAction, "schedule.manage")
    .annotateMerge(docs("Delete a schedule", "Its runs go with it; tasks already submitted stay. Needs scope `schedules:write`.")),
  HttpApiEndpoint.post("pauseSchedule", `${base}/:id/pause`, { params: scheduleId, success: ScheduleView, error: refused })
    .annotate(RequiredScope, "schedules:write").annotate(RequiredAction, "schedule.manage")
    .annotateMerge(docs("Pause a schedule", "Emits `schedule.paused` (`manual`). Needs scope `schedules:write`.")),
  HttpApiEndpoint.post("resumeSchedule", `${base}/:id/resume`, { params: scheduleId, success: ScheduleView, error: refused })
    .annotate(RequiredScope, "schedules:write").annotate(RequiredAction, "schedule.manage")
    .annotateMerge(docs(
      "Resume a schedule",
      "Clears the failure count; the next run is the first occurrence after now. A schedule paused because its creator " +
        "left runs as the one resuming it. Needs scope `schedules:write`."
    )),
  HttpApiEndpoint.post("runScheduleNow", `${base}/:id/run-now`, {
    params: scheduleId,
    success: ScheduleRunView.pipe(HttpApiSchema.status(202)),
    error: refused
  }).annotate(RequiredScope, "schedules:write").annotate(RequiredAction, "schedule.manage").annotateMerge(docs(
    "Run a schedule now",
    "Fires once now under the same rules as an occurrence; answers the run (`started` with its task id, or `skipped` " +
      "with the reason). A paused schedule is 409 `conflict`. Needs scope `schedules:write`."
  )),
  HttpApiEndpoint.get("listScheduleRuns", `${base}/:id/runs`, { params: scheduleId, query: PageQuery, success: ScheduleRunList, error: refused })
    .annotate(RequiredScope, "read").annotate(RequiredAction, "workspace.read")
    .annotateMerge(docs("List a schedule's runs", "Newest occurrence first, each with its task id and status. Needs scope `read`."))
] as const
