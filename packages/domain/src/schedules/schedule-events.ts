import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { IsoTime } from "../shared/index.ts"
import { PausedReason, SkipReason } from "./schedule.ts"

const ScheduleRef = {
  scheduleId: Schema.String.annotate({ description: "Schedule id (sch_…)" }),
  scheduledFor: IsoTime.annotate({ description: "The occurrence, in UTC" })
}

/** Events of the schedules area. */
export const ScheduleEvents = {
  runStarted: defineEvent(
    "schedule.run_started",
    "A schedule fired: its occurrence submitted an AI task (the task's own `ai_task.*` events follow, naming the schedule).",
    Schema.Struct({ ...ScheduleRef, taskId: Schema.String.annotate({ description: "The submitted AI task (task_…)" }) })
  ),
  runSkipped: defineEvent(
    "schedule.run_skipped",
    "A schedule's occurrence submitted no task: the previous one was still running, the submission was refused, or no server ran at the time and catch-up passed it over (`missed`).",
    Schema.Struct({ ...ScheduleRef, reason: SkipReason })
  ),
  paused: defineEvent(
    "schedule.paused",
    "A schedule stopped firing: paused by a person, after consecutive failures or refusals, or because its creator was removed or demoted.",
    Schema.Struct({ scheduleId: Schema.String.annotate({ description: "Schedule id (sch_…)" }), reason: PausedReason })
  )
}
