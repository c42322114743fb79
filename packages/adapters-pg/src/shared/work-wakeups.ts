import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Effect, Latch, Layer, Queue, Schedule, Scope } from "effect"

/** The channel on which inserts of due work announce their queue's name (sent when the inserting transaction commits). */
export const workChannel = "atrium_work"

/**
 * Work announcements of every process, heard on one `LISTEN` connection per process (a listener holds its pool
 * connection for good, so one per queue would take the pool's working connections away). A lost listener connection is
 * re-established with backoff; meanwhile the workers' own polling still finds the work.
 */
export class WorkAnnouncements extends Context.Service<WorkAnnouncements, {
  /** A latch opened whenever `queue`'s work is announced, for `runWorker`'s `wakeUp`; the first call starts listening. */
  readonly subscribe: (queue: string) => Effect.Effect<Latch.Latch>
}>()("@atrium/adapters-pg/WorkAnnouncements") {
  static readonly layer = Layer.effect(
    WorkAnnouncements,
    Effect.gen(function*() {
      const client = yield* PgClient.PgClient
      const scope = yield* Scope.Scope
      const latches = new Map<string, Array<Latch.Latch>>()
      const openAll = () => latches.forEach((queue) => queue.forEach((latch) => latch.openUnsafe()))
      const listen = Effect.scoped(Effect.gen(function*() {
        const notifications = yield* client.listen(workChannel)
        // A (re)connected listener may have missed announcements: every worker looks once.
        openAll()
        return yield* Effect.forever(Queue.take(notifications).pipe(Effect.map((notification) => {
          latches.get(notification.payload)?.forEach((latch) => latch.openUnsafe())
        })))
      }))
      const start = listen.pipe(
        Effect.tapCause((cause) => Effect.logWarning("work notifications lost; polling until they are back", cause)),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.forkIn(scope)
      )
      let listening = false
      const subscribe = Effect.fn("WorkAnnouncements.subscribe")(function*(queue: string) {
        const latch = Latch.makeUnsafe(false)
        latches.set(queue, [...(latches.get(queue) ?? []), latch])
        if (listening) {
          // Joining a listener already running: look once, as after a (re)connect.
          latch.openUnsafe()
        } else {
          listening = true
          yield* start
        }
        return latch
      })
      return WorkAnnouncements.of({ subscribe })
    })
  )
}

