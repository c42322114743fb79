import { withDeadline } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit } from "effect"

const late = () => Exit.fail("late" as const)

describe("withDeadline", () => {
  it.live("answers late at the deadline, without waiting for a call whose clean-up itself hangs", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      // A driver that, interrupted, waits on the frozen peer before it lets go.
      const stuck = Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined).pipe(Effect.andThen(Effect.never))))
      const started = Date.now()
      const exit = yield* Effect.exit(withDeadline(stuck, 50, late))
      assert.deepStrictEqual(exit, Exit.fail("late"))
      assert.isBelow(Date.now() - started, 1_000)
      // The call was interrupted in the background.
      yield* Deferred.await(interrupted).pipe(Effect.timeout("1 second"))
    }))

  it.live("passes through an answer that comes in time, at once or later, and its failure", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* withDeadline(Effect.succeed(1), 50, late), 1)
      // Answered later: by another fiber, after the deadline's timer is armed.
      const answer = yield* Deferred.make<number>()
      yield* Effect.forkChild(Effect.andThen(Effect.yieldNow, Deferred.succeed(answer, 2)))
      assert.strictEqual(yield* withDeadline(Deferred.await(answer), 1_000, late), 2)
      assert.deepStrictEqual(yield* Effect.exit(withDeadline(Effect.fail("refused" as const), 1_000, late)), Exit.fail("refused"))
    }))

  it.live("interrupting the caller interrupts the call", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const call = Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
      yield* withDeadline(call, 60_000, late).pipe(Effect.timeout("20 millis"), Effect.ignore)
      yield* Deferred.await(interrupted).pipe(Effect.timeout("1 second"))
    }))
})
