import { AiTaskRequest, AiTaskView, TaskId } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AiTaskAccepted, IdempotencyKey } from "./ai-task-schemas.ts"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { v1Routes } from "./front-door.ts"
import { RequiredPermission } from "./security.ts"

/** AI tasks of `/api/v1`: submit (queued, run by a worker) and poll, with an API key or a member session. */
export class AiTasksGroup extends HttpApiGroup.make("aiTasks")
  .add(
    HttpApiEndpoint.post("submitAiTask", "/ai-tasks", {
      headers: { "idempotency-key": Schema.optional(IdempotencyKey) },
      payload: AiTaskRequest,
      success: AiTaskAccepted,
      error: [
        Problems.InvalidInput,
        Problems.NotEntitled,
        Problems.UsageCapReached,
        Problems.InsufficientCredits,
        Problems.IdempotencyKeyReused,
        ...serverErrors
      ]
    })
      .annotate(RequiredPermission, "ai_tasks.submit")
      .annotateMerge(docs(
        "Submit an AI task",
        "Checks, in order: the model is in the catalog (400), the workspace has its feature (403 `not_entitled`), " +
          "the worst-case cost fits the monthly caps (402 `usage_cap_reached`) and the available credit " +
          "(402 `insufficient_credits`); then reserves the worst case and queues the task (202). Poll " +
          "`GET /api/v1/ai-tasks/{id}` or subscribe to `ai_task.succeeded` / `ai_task.failed`. Needs `ai_tasks.submit`: " +
          "scope `ai_tasks:write` with an API key; any member's session, in the active workspace."
      )),
    HttpApiEndpoint.get("getAiTask", "/ai-tasks/:id", {
      params: { id: TaskId },
      success: AiTaskView,
      error: [Problems.NotFound, ...serverErrors]
    })
      .annotate(RequiredPermission, "ai_tasks.read")
      .annotateMerge(docs(
        "Read an AI task",
        "Its status and, once finished, its output, usage and cost. Needs scope `read`, or any member's session."
      ))
  )
  .pipe(v1Routes(["api_key", "member"]))
  .annotateMerge(OpenApi.annotations({ title: "ai tasks", description: "Queued AI work, billed against the workspace's credits." }))
{}
