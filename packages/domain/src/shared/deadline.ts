import { Effect, type Exit } from "effect"

/**
 * `effect`, or `onLate()` once `millis` pass — without waiting for `effect` to wind down: a call stuck on a frozen
 * dependency (a statement the database never answers, a Redis command never replied to) is interrupted in the
 * background while the caller already has its answer (`Effect.timeout` would wait for that interruption, and a
 * driver's clean-up can itself wait on the frozen peer). Interrupting the caller interrupts `effect` too.
 *
 * One forked fiber and one host timer per call, started at once so a quick answer costs no scheduler turn. Wall time
 * on purpose: a test clock must not hold a frozen dependency's answer back.
 */
export const withDeadline = <A, E, R>(effect: Effect.Effect<A, E, R>, millis: number, onLate: () => Exit.Exit<A, E>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.forkDetach(effect, { startImmediately: true }), (fiber) =>
    Effect.callback<A, E>((resume) => {
      let settled = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const stop = fiber.addObserver((exit) => {
        if (settled) return
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        resume(exit)
      })
      // Already answered (the observer ran at once): no timer to arm.
      if (fiber.pollUnsafe() !== undefined) return
      timer = setTimeout(() => {
        if (settled) return
        settled = true
        stop()
        fiber.interruptUnsafe()
        resume(onLate())
      }, millis)
      return Effect.sync(() => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        stop()
        fiber.interruptUnsafe()
      })
    }))
