import { AiTasks } from "@atrium/domain"
import { Cause, type Duration, Effect, Layer } from "effect"

/**
 * Runs queued AI tasks: claims a batch (leased rows any process may take), executes them concurrently, repeats;
 * sleeps briefly when nothing is due. A crash leaves the leases to expire and the tasks to run again, settled once.
 */
export const AiTaskWorker = {
  layer: (options: { readonly batch: number; readonly idlePoll: Duration.Input } = { batch: 16, idlePoll: "100 millis" }) =>
    Layer.effectDiscard(Effect.gen(function*() {
      const tasks = yield* AiTasks
      const pass = Effect.gen(function*() {
        const claimed = yield* tasks.claim(options.batch)
        if (claimed.length === 0) return yield* Effect.sleep(options.idlePoll)
        yield* Effect.forEach(claimed, tasks.execute, { concurrency: "unbounded", discard: true })
      }).pipe(
        // An outage or a defect in one pass must not end the worker: log it, back off, poll again.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logWarning("AI task queue pass failed; retrying", cause).pipe(Effect.andThen(Effect.sleep("1 second")))
        )
      )
      yield* Effect.forever(pass).pipe(Effect.forkScoped)
    }))
}
