import { AiTasks, CurrentPrincipal, toAiTaskView } from "@atrium/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder, HttpApiSchema } from "effect/http-api"
import { Api } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"

// The header goes out only on a replay; a first submission answers without it.
const replayedHeaders: { readonly "idempotent-replayed"?: "true" } = { "idempotent-replayed": "true" }
const firstHeaders: { readonly "idempotent-replayed"?: "true" } = {}

/** Handlers of `/api/v1/ai-tasks`; a task belongs to the caller's workspace (the key's, or the session's active one) and is billed to it. */
export const AiTasksHandlers = Layer.unwrap(Effect.gen(function*() {
    const tasks = yield* AiTasks
    return leanGroup(HttpApiBuilder.group(Api, "aiTasks", (handlers) => handlers
      .handle("submitAiTask", Effect.fn("V1.submitAiTask")(function*({ headers, payload }) {
        const submitted = yield* tasks.submit(yield* CurrentPrincipal, {
          model: payload.model,
          input: payload.input,
          maxOutputTokens: payload.maxOutputTokens,
          metadata: payload.metadata,
          idempotencyKey: headers["idempotency-key"]
        })
        return HttpApiSchema.withHeaders({
          body: toAiTaskView(submitted.task),
          headers: submitted.replayed ? replayedHeaders : firstHeaders
        })
      }))
      .handle("getAiTask", Effect.fn("V1.getAiTask")(function*({ params }) {
        return toAiTaskView(yield* tasks.get(yield* CurrentPrincipal, params.id))
      }))))
}))
