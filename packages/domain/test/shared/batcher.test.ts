import { makeBatcher, Unavailable } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"

describe("makeBatcher", () => {
  it.effect("items offered while a write is under way go out together in the next write", () =>
    Effect.gen(function*() {
      const writes: Array<ReadonlyArray<number>> = []
      const gate = yield* Deferred.make<void>()
      const batcher = yield* makeBatcher(
        (items: ReadonlyArray<number>) => Effect.sync(() => writes.push(items)).pipe(Effect.andThen(writes.length === 1 ? Deferred.await(gate) : Effect.void)),
        { maxBatch: 100, writers: 1 }
      )
      const first = yield* Effect.forkChild(batcher.write(0))
      while (writes.length === 0) yield* Effect.yieldNow
      const rest = yield* Effect.forkChild(Effect.all([1, 2, 3, 4].map(batcher.write), { concurrency: "unbounded" }))
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(rest)
      assert.deepStrictEqual(writes, [[0], [1, 2, 3, 4]])
    }))

  it.effect("with a linger, items arriving just after the first share its write; later ones wait for the next", () =>
    Effect.gen(function*() {
      const writes: Array<ReadonlyArray<number>> = []
      const batcher = yield* makeBatcher(
        (items: ReadonlyArray<number>) => Effect.sync(() => writes.push(items)),
        { maxBatch: 100, writers: 1, linger: "5 millis" }
      )
      const arrivals = yield* Effect.forkChild(Effect.all([
        batcher.write(0),
        Effect.sleep("2 millis").pipe(Effect.andThen(batcher.write(1))),
        Effect.sleep("4 millis").pipe(Effect.andThen(batcher.write(2))),
        Effect.sleep("8 millis").pipe(Effect.andThen(batcher.write(3)))
      ], { concurrency: "unbounded" }))
      for (let ms = 0; ms < 20; ms++) {
        yield* TestClock.adjust("1 millis")
        for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      }
      yield* Fiber.join(arrivals)
      assert.deepStrictEqual(writes, [[0, 1, 2], [3]])
    }))

  it.effect("a group that dies is written again item by item: only the bad item fails", () =>
    Effect.gen(function*() {
      const batcher = yield* makeBatcher(
        (items: ReadonlyArray<number>) => items.includes(13) ? Effect.die(new Error("value out of range")) : Effect.void,
        { maxBatch: 100, writers: 1 }
      )
      const exits = yield* Effect.all([1, 13, 2].map((n) => Effect.exit(batcher.write(n))), { concurrency: "unbounded" })
      assert.deepStrictEqual(exits.map(Exit.isSuccess), [true, false, true])
    }))

  it.effect("a group that fails (an outage) fails every item of it, without retrying one by one", () =>
    Effect.gen(function*() {
      let calls = 0
      const batcher = yield* makeBatcher(
        (_items: ReadonlyArray<number>) => Effect.suspend(() => {
          calls++
          return Effect.fail(new Unavailable({ dependency: "database" }))
        }),
        { maxBatch: 100, writers: 1 }
      )
      const exits = yield* Effect.all([1, 2, 3].map((n) => Effect.exit(batcher.write(n))), { concurrency: "unbounded" })
      assert.isTrue(exits.every(Exit.isFailure))
      assert.isAtMost(calls, 3)
    }))
})
