import { AiTaskRequest, AiTaskView, TaskId } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { AiTaskAccepted, IdempotencyKey } from "./ai-task-schemas.ts"
import { Authentication } from "./authentication.ts"
import { Authorization } from "./authorization.ts"
import {
  IdempotencyKeyReusedProblem,
  InsufficientCreditsProblem,
  NotEntitledProblem,
  UsageCapReachedProblem
} from "./business-problems.ts"
import { InvalidRequestProblem, NotFoundProblem, serverProblems } from "./problems.ts"
import { RateLimit } from "./rate-limit.ts"
import { RequiredScope } from "./required-scope.ts"
import { strictPayloads } from "./strict-payloads.ts"

/** AI tasks of `/api/v1`: submit (queued, run by a worker) and poll. */
export class AiTasksGroup extends HttpApiGroup.make("aiTasks")
  .add(
    HttpApiEndpoint.post("submitAiTask", "/ai-tasks", {
      headers: { "idempotency-key": Schema.optional(IdempotencyKey) },
      payload: AiTaskRequest,
      success: AiTaskAccepted,
      error: [
        InvalidRequestProblem,
        NotEntitledProblem,
        UsageCapReachedProblem,
        InsufficientCreditsProblem,
        IdempotencyKeyReusedProblem,
        ...serverProblems
      ]
    })
      .annotate(RequiredScope, "ai_tasks:write")
      .annotateMerge(OpenApi.annotations({
        summary: "Submit an AI task",
        description: "Checks, in order: the model is in the catalog (400), the workspace has its feature (403 `not_entitled`), " +
          "the worst-case cost fits the monthly caps (402 `usage_cap_reached`) and the available credit " +
          "(402 `insufficient_credits`); then reserves the worst case and queues the task (202). Poll " +
          "`GET /api/v1/ai-tasks/{id}` or subscribe to `ai_task.succeeded` / `ai_task.failed`. Needs scope `ai_tasks:write`."
      })),
    HttpApiEndpoint.get("getAiTask", "/ai-tasks/:id", {
      params: { id: TaskId },
      success: AiTaskView,
      error: [NotFoundProblem, ...serverProblems]
    })
      .annotate(RequiredScope, "read")
      .annotateMerge(OpenApi.annotations({
        summary: "Read an AI task",
        description: "Its status and, once finished, its output, usage and cost. Needs scope `read`."
      }))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  // Listed innermost first: authentication runs outermost, then the rate limit, then the scope check.
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(Authorization)
  .middleware(RateLimit)
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotateMerge(OpenApi.annotations({ title: "ai tasks", description: "Queued AI work, billed against the workspace's credits." }))
{}
