import { Transactor } from "@atrium/domain"
import { Deferred, Effect, Fiber, Latch, Schedule } from "effect"
import { StorageProbe } from "./storage-probe.ts"

// Until another session waits for a lock `session` holds: the lock table, polled (no server event announces a wait).
const untilWaiting = (session: number) =>
  Effect.gen(function*() {
    const probe = yield* StorageProbe
    yield* probe.waitingFor(session).pipe(Effect.repeat({ until: (waiting) => waiting >= 1, schedule: Schedule.spaced("5 millis") }))
  })

/**
 * Runs `holder` in a transaction that, where it yields `waitedOn`, keeps its locks until `waiter` (started then) waits
 * for one of them — or finished without waiting, which the caller's assertions then catch. Answers both answers.
 */
export const whileHeld = <A, E, R, B, E2, R2>(holder: (waitedOn: Effect.Effect<void>) => Effect.Effect<A, E, R>, waiter: Effect.Effect<B, E2, R2>) =>
  Effect.gen(function*() {
    const tx = yield* Transactor
    const probe = yield* StorageProbe
    const held = yield* Deferred.make<number>()
    const release = yield* Latch.make(false)
    const waitedOn = Effect.flatMap(probe.session, (session) => Deferred.succeed(held, session)).pipe(Effect.andThen(release.await))
    const holding = yield* Effect.forkChild(tx.withTransaction(holder(waitedOn)))
    const session = yield* Deferred.await(held)
    const waiting = yield* Effect.forkChild(waiter)
    yield* Effect.raceFirst(untilWaiting(session), Effect.asVoid(Fiber.await(waiting)))
    yield* release.open
    return { held: yield* Fiber.join(holding), waited: yield* Fiber.join(waiting) }
  })
