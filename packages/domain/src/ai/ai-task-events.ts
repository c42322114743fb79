import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { IsoTime } from "../shared/index.ts"

const TaskUsage = Schema.Struct({
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  costMicros: Schema.Int.annotate({ description: "Cost in micro-USD" })
})

// Present only on tasks a schedule submitted.
const ScheduleRef = Schema.optionalKey(Schema.String.annotate({ description: "The schedule (sch_…) that submitted the task, when one did" }))

/** Events of the AI area. */
export const AiTaskEvents = {
  succeeded: defineEvent(
    "ai_task.succeeded",
    "An AI task finished with output; usage and cost are final.",
    Schema.Struct({
      task: Schema.Struct({ id: Schema.String, model: Schema.String, status: Schema.Literal("succeeded"), usage: TaskUsage, finishedAt: IsoTime }),
      scheduleId: ScheduleRef
    })
  ),
  failed: defineEvent(
    "ai_task.failed",
    "An AI task failed; failed tasks cost nothing.",
    Schema.Struct({
      task: Schema.Struct({
        id: Schema.String,
        model: Schema.String,
        status: Schema.Literal("failed"),
        error: Schema.Struct({ code: Schema.String, message: Schema.String }),
        finishedAt: IsoTime
      }),
      scheduleId: ScheduleRef
    })
  )
}
