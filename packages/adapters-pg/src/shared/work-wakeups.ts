import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Latch, Queue, Schedule } from "effect"
import type { Scope } from "effect"

/** The channel on which inserts of due work announce their queue's name (sent when the inserting transaction commits). */
export const workChannel = "atrium_work"

/**
 * A latch opened whenever another connection (any process) announces new work on `queue`, for `runWorker`'s
 * `wakeUp`: a worker idling between polls claims at once instead of at its next poll. A lost listener connection is
 * re-established with backoff; meanwhile the worker's own polling still finds the work.
 */
export const subscribeWork = (queue: string): Effect.Effect<Latch.Latch, never, PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* PgClient.PgClient
    const wake = Latch.makeUnsafe(false)
    const listen = Effect.scoped(Effect.gen(function*() {
      const notifications = yield* client.listen(workChannel)
      // A (re)connected listener may have missed announcements: look once.
      wake.openUnsafe()
      return yield* Effect.forever(Queue.take(notifications).pipe(Effect.map((notification) => {
        if (notification.payload === queue) wake.openUnsafe()
      })))
    }))
    yield* listen.pipe(
      Effect.tapCause((cause) => Effect.logWarning(`${queue}: work notifications lost; polling until they are back`, cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    return wake
  })
