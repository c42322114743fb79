import { AiTasks, toAiTaskView } from "@atrium/domain"
import { Effect } from "effect"
import { HttpApiBuilder, HttpApiSchema } from "effect/http-api"
import { Api } from "../api/api.ts"
import { currentAnyCaller } from "./caller.ts"
import {
  idempotencyKeyReusedProblem,
  insufficientCreditsProblem,
  invalidInputProblem,
  notEntitledProblem,
  notFoundProblem,
  unavailableProblem,
  usageCapReachedProblem
} from "./domain-problems.ts"

// The header goes out only on a replay; a first submission answers without it.
const replayedHeaders: { readonly "idempotent-replayed"?: "true" } = { "idempotent-replayed": "true" }
const firstHeaders: { readonly "idempotent-replayed"?: "true" } = {}

/** Handlers of `/api/v1/ai-tasks`; a task belongs to the caller's workspace (the key's, or the session's active one) and is billed to it. */
export const AiTasksHandlers = HttpApiBuilder.group(
  Api,
  "aiTasks",
  Effect.fn("AiTasksHandlers.make")(function*(handlers) {
    const tasks = yield* AiTasks
    return handlers
      .handle("submitAiTask", Effect.fn("V1.submitAiTask")(function*({ headers, payload }) {
        const caller = yield* currentAnyCaller
        const submitted = yield* tasks.submit({
          workspaceId: caller.workspaceId,
          actor: caller.actor,
          model: payload.model,
          input: payload.input,
          maxOutputTokens: payload.maxOutputTokens,
          metadata: payload.metadata,
          idempotencyKey: headers["idempotency-key"]
        }).pipe(Effect.catchTags({
          InvalidInput: invalidInputProblem,
          NotEntitled: notEntitledProblem,
          UsageCapReached: usageCapReachedProblem,
          InsufficientCredits: insufficientCreditsProblem,
          IdempotencyKeyReused: idempotencyKeyReusedProblem,
          Unavailable: unavailableProblem
        }))
        return HttpApiSchema.withHeaders({
          body: toAiTaskView(submitted.task),
          headers: submitted.replayed ? replayedHeaders : firstHeaders
        })
      }))
      .handle("getAiTask", Effect.fn("V1.getAiTask")(function*({ params }) {
        const caller = yield* currentAnyCaller
        const task = yield* tasks.get(caller.workspaceId, params.id).pipe(
          Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
        return toAiTaskView(task)
      }))
  })
)
