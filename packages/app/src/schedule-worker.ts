import { runWorker, Schedules, scheduleWorkQueue, type WorkerOptions } from "@atrium/domain"
import { Effect, Layer } from "effect"

/**
 * Fires due schedule occurrences on the common worker loop: leased occurrence rows any process may claim, each fired
 * in one step (at most one task per occurrence, however many processes run this).
 */
export const ScheduleWorker = {
  layer: (options: Partial<WorkerOptions> = { concurrency: 16, idlePoll: "500 millis" }) =>
    Layer.effectDiscard(Effect.gen(function*() {
      yield* runWorker(scheduleWorkQueue(yield* Schedules), options)
    }))
}
