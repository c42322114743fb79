import { Option, Schema } from "effect"
import { AiTask, AiTaskError, AiTaskMetadata, AiTaskStatus } from "./ai-task.ts"
import { deriveView, TaskId } from "../shared/index.ts"
import { ModelId } from "../shared/index.ts"

const IsoTime = Schema.String.annotate({ format: "date-time" })

/** What a workspace sees of a task (`POST` 202 and `GET /api/v1/ai-tasks/{id}`): no input echo, no internal queue state. */
export const AiTaskView = Schema.Struct({
  id: TaskId,
  status: AiTaskStatus,
  model: ModelId,
  createdAt: IsoTime,
  startedAt: Schema.NullOr(IsoTime),
  finishedAt: Schema.NullOr(IsoTime),
  maxOutputTokens: Schema.Int,
  metadata: AiTaskMetadata,
  output: Schema.NullOr(Schema.String),
  usage: Schema.NullOr(Schema.Struct({
    inputTokens: Schema.Int,
    outputTokens: Schema.Int,
    costMicros: Schema.Int.annotate({ description: "Final cost in micro-USD (0 for a failed task)" })
  })),
  reservedMicros: Schema.Int.annotate({ description: "Worst-case cost held while the task is unfinished" }),
  error: Schema.NullOr(AiTaskError),
  scheduleId: Schema.NullOr(Schema.String).annotate({ description: "The schedule (sch_…) that submitted the task, or null" })
}).annotate({ identifier: "AiTask", description: "An AI task and, once finished, its output, usage and cost" })
export type AiTaskView = typeof AiTaskView.Type

/** The public view of a stored task: its input, queue state and submitter withheld, its usage once finished. */
const aiTaskView = deriveView(AiTask, AiTaskView, {
  withheld: ["workspaceId", "input", "inputTokens", "outputTokens", "costMicros", "attempts", "nextAttemptAt", "submittedBy"]
})
export const toAiTaskView = (task: AiTask): AiTaskView =>
  aiTaskView(task, {
    usage: task.isFinished
      ? {
        inputTokens: Option.getOrElse(task.inputTokens, () => 0),
        outputTokens: Option.getOrElse(task.outputTokens, () => 0),
        costMicros: Option.getOrElse(task.costMicros, () => 0)
      }
      : null
  })
