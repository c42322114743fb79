import { type Duration, Effect, Fiber, Option } from "effect"

/**
 * `effect`, or `onTimeout()` once `deadline` passes — without waiting for `effect` to wind down: a request stuck on a
 * frozen dependency (a statement the database never answers) is interrupted in the background while the client
 * already has its answer. Interrupting the caller interrupts `effect` too.
 */
export const withDeadline = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  deadline: Duration.Duration,
  onTimeout: () => A
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkDetach(effect)
    const abandon = Effect.forkDetach(Fiber.interrupt(fiber))
    const exit = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(deadline), Effect.onInterrupt(() => abandon))
    if (Option.isNone(exit)) {
      yield* abandon
      return onTimeout()
    }
    return yield* exit.value
  })
