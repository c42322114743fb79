import { Duration, Effect, Exit } from "effect"

/**
 * `effect`, or `onTimeout()` once `deadline` passes — without waiting for `effect` to wind down: a request stuck on a
 * frozen dependency (a statement the database never answers) is interrupted in the background while the client
 * already has its answer. Interrupting the caller interrupts `effect` too.
 *
 * One forked fiber and one host timer per request: `Effect.timeoutOption` over `Fiber.await` forked two more fibers
 * and doubled the cost of the hot path. The deadline is wall time on purpose (a test clock must not hold it back).
 */
export const withDeadline = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  deadline: Duration.Duration,
  onTimeout: () => A
): Effect.Effect<A, E, R> => {
  const millis = Duration.toMillis(deadline)
  // No deadline (an infinite one): run the request as it is.
  if (!Number.isFinite(millis)) return effect
  return Effect.flatMap(Effect.forkDetach(effect), (fiber) =>
    Effect.callback<A, E>((resume) => {
      let settled = false
      const stop = fiber.addObserver((exit) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(exit)
      })
      const timer = setTimeout(() => {
        if (settled) return
        settled = true
        stop()
        fiber.interruptUnsafe()
        resume(Exit.succeed(onTimeout()))
      }, millis)
      return Effect.sync(() => {
        settled = true
        clearTimeout(timer)
        stop()
        fiber.interruptUnsafe()
      })
    }))
}
