import { makeKeyedSlots, runWorker, Unavailable, type WorkQueue } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Fiber, Latch, Option, Ref } from "effect"
import { TestClock } from "effect/testing"

interface Item {
  readonly id: string
  readonly key: string
}

const item = (id: string, key = id): Item => ({ id, key })

/** A queue that hands out `batches` one claim at a time (then nothing), and records what happened to each item. */
const scriptedQueue = Effect.fnUntraced(function*(
  batches: ReadonlyArray<ReadonlyArray<Item>>,
  step: (item: Item) => Effect.Effect<unknown, unknown>,
  keyed = false
) {
  const pending = yield* Ref.make(batches)
  const done = yield* Ref.make<ReadonlyArray<string>>([])
  const defects = yield* Ref.make<ReadonlyArray<string>>([])
  const claims = yield* Ref.make(0)
  const queue: WorkQueue<Item> = {
    name: "TestQueue",
    claim: (limit) =>
      Ref.update(claims, (n) => n + 1).pipe(
        Effect.andThen(Ref.modify(pending, ([next, ...rest]): readonly [ReadonlyArray<Item>, ReadonlyArray<ReadonlyArray<Item>>] =>
          next === undefined ? [[], []] : [next.slice(0, limit), [next.slice(limit), ...rest].filter((b) => b.length > 0)]
        ))
      ),
    step: (i) => step(i).pipe(Effect.andThen(Ref.update(done, (all) => [...all, i.id]))),
    keyOf: keyed ? (i) => i.key : undefined,
    onDefect: (i) => Ref.update(defects, (all) => [...all, i.id])
  }
  return { queue, done, defects, claims }
})

// Lets the worker's fibers run up to their next wait on the TestClock.
const settle = Effect.gen(function*() {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

describe("runWorker", () => {
  it.effect("a defect in one item is recorded against that item only; every other item of the batch completes", () =>
    Effect.gen(function*() {
      const batch = Array.from({ length: 8 }, (_, i) => item(`t${i}`))
      const { queue, done, defects } = yield* scriptedQueue([batch], (i) => i.id === "t3" ? Effect.die(new Error("poison")) : Effect.void)
      yield* runWorker(queue, { concurrency: 8 })
      yield* settle
      assert.deepStrictEqual([...(yield* Ref.get(done))].sort(), ["t0", "t1", "t2", "t4", "t5", "t6", "t7"])
      assert.deepStrictEqual(yield* Ref.get(defects), ["t3"])
    }))

  it.effect("an expected failure (an outage) is left to the lease: not recorded as a defect", () =>
    Effect.gen(function*() {
      const { queue, done, defects } = yield* scriptedQueue(
        [[item("a"), item("b")]],
        (i) => i.id === "a" ? Effect.fail(new Unavailable({ dependency: "database" })) : Effect.void
      )
      yield* runWorker(queue)
      yield* settle
      assert.deepStrictEqual(yield* Ref.get(done), ["b"])
      assert.deepStrictEqual(yield* Ref.get(defects), [])
    }))

  it.effect("a claim that waited past staleAfter for its key's slot is skipped, never run late", () =>
    Effect.gen(function*() {
      const { queue, done } = yield* scriptedQueue(
        [[item("slow", "endpoint"), item("late", "endpoint"), item("other", "elsewhere")]],
        (i) => i.id === "slow" ? Effect.sleep("45 seconds") : Effect.void,
        true
      )
      yield* runWorker(queue, { perKey: 1, staleAfter: "30 seconds" })
      yield* settle
      // The other key is not held up by the slow one.
      assert.deepStrictEqual(yield* Ref.get(done), ["other"])
      yield* TestClock.adjust("45 seconds")
      yield* settle
      assert.deepStrictEqual(yield* Ref.get(done), ["other", "slow"])
    }))

  it.effect("a pass that fails backs off for failureBackoff before claiming again", () =>
    Effect.gen(function*() {
      let calls = 0
      const queue: WorkQueue<Item> = {
        name: "Outage",
        claim: () => Effect.suspend(() => ++calls === 1 ? Effect.die(new Error("connection reset")) : Effect.succeed([])),
        step: () => Effect.void
      }
      yield* runWorker(queue, { failureBackoff: "5 seconds", idlePoll: "1 second" })
      yield* settle
      assert.strictEqual(calls, 1)
      yield* TestClock.adjust("4 seconds")
      yield* settle
      assert.strictEqual(calls, 1)
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.strictEqual(calls, 2)
      // Then the idle poll, not the backoff.
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.strictEqual(calls, 3)
    }))

  it.effect("claims only up to the free capacity, and claims again as soon as a step ends", () =>
    Effect.gen(function*() {
      const limits: Array<number> = []
      let served = false
      const queue: WorkQueue<Item> = {
        name: "Capacity",
        claim: (limit) =>
          Effect.sync(() => {
            limits.push(limit)
            if (served) return []
            served = true
            return [item("a"), item("b"), item("c")]
          }),
        step: (i) => Effect.sleep(i.id === "a" ? "1 second" : "1 hour")
      }
      yield* runWorker(queue, { concurrency: 3, idlePoll: "1 minute", claimBatch: 1 })
      yield* settle
      assert.deepStrictEqual(limits, [3])
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.deepStrictEqual(limits, [3, 1])
    }))

  it.effect("while steps are in flight, claims wait until claimBatch slots are free, so they come in batches", () =>
    Effect.gen(function*() {
      const limits: Array<number> = []
      let served = false
      const queue: WorkQueue<Item> = {
        name: "Batches",
        claim: (limit) =>
          Effect.sync(() => {
            limits.push(limit)
            if (served) return []
            served = true
            return Array.from({ length: 8 }, (_, i) => item(`t${i}`))
          }),
        // t0..t7 end one second apart.
        step: (i) => Effect.sleep(`${Number(i.id.slice(1)) + 1} seconds`)
      }
      yield* runWorker(queue, { concurrency: 8, idlePoll: "1 minute", claimBatch: 4 })
      yield* settle
      for (let second = 1; second <= 3; second++) {
        yield* TestClock.adjust("1 second")
        yield* settle
      }
      assert.deepStrictEqual(limits, [8])
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.deepStrictEqual(limits, [8, 4])
    }))

  it.effect("an announcement of new work wakes an idle worker before its next poll", () =>
    Effect.gen(function*() {
      let claims = 0
      const wakeUp = Latch.makeUnsafe(false)
      const queue: WorkQueue<Item> = { name: "Woken", claim: () => Effect.sync(() => (claims++, [])), step: () => Effect.void, wakeUp }
      yield* runWorker(queue, { idlePoll: "1 minute" })
      yield* settle
      assert.strictEqual(claims, 1)
      wakeUp.openUnsafe()
      yield* settle
      assert.strictEqual(claims, 2)
      // Without an announcement it waits for the poll.
      yield* TestClock.adjust("59 seconds")
      yield* settle
      assert.strictEqual(claims, 2)
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.strictEqual(claims, 3)
    }))

  it.effect("an announced queue polls only every announcedPoll; one without announcements every idlePoll", () =>
    Effect.gen(function*() {
      let announcedClaims = 0
      let polledClaims = 0
      const wakeUp = Latch.makeUnsafe(false)
      yield* runWorker({ name: "Announced", claim: () => Effect.sync(() => (announcedClaims++, [])), step: () => Effect.void, wakeUp }, { idlePoll: "100 millis" })
      yield* runWorker({ name: "Polled", claim: () => Effect.sync(() => (polledClaims++, [])), step: () => Effect.void }, { idlePoll: "100 millis" })
      yield* settle
      assert.deepStrictEqual([announcedClaims, polledClaims], [1, 1])
      yield* TestClock.adjust("900 millis")
      yield* settle
      assert.deepStrictEqual([announcedClaims, polledClaims], [1, 10])
      yield* TestClock.adjust("100 millis")
      yield* settle
      assert.deepStrictEqual([announcedClaims, polledClaims], [2, 11])
    }))

  it.effect("a claim that got fewer items than it asked for waits for an announcement (or the poll) before claiming again", () =>
    Effect.gen(function*() {
      let claims = 0
      const wakeUp = Latch.makeUnsafe(false)
      const queue: WorkQueue<Item> = {
        name: "Drained",
        claim: () => Effect.sync(() => (claims++, claims === 1 ? [item("a")] : [])),
        step: () => Effect.never,
        wakeUp
      }
      yield* runWorker(queue, { concurrency: 8, idlePoll: "1 minute", claimBatch: 1 })
      yield* settle
      // One item of the eight asked for: nothing else was due, so no second claim right behind it.
      assert.strictEqual(claims, 1)
      wakeUp.openUnsafe()
      yield* settle
      assert.strictEqual(claims, 2)
      yield* TestClock.adjust("1 minute")
      yield* settle
      assert.strictEqual(claims, 3)
    }))

  it.effect("stopping the worker interrupts steps in flight without recording them as defects", () =>
    Effect.gen(function*() {
      const { queue, done, defects } = yield* scriptedQueue([[item("a")]], () => Effect.never)
      const fiber = yield* Effect.forkChild(Effect.scoped(Effect.andThen(runWorker(queue), Effect.never)))
      yield* settle
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* Ref.get(done), [])
      assert.deepStrictEqual(yield* Ref.get(defects), [])
    }))
  it.effect("a stopping worker claims no more and lets its steps finish within stopGrace; a step past it is interrupted", () =>
    Effect.gen(function*() {
      const { queue, done, claims } = yield* scriptedQueue(
        [[item("quick"), item("slow")], [item("never-claimed")]],
        // Two slots: once "quick" ends a running worker would claim "never-claimed".
        (i) => Effect.sleep(i.id === "quick" ? "2 seconds" : "20 seconds")
      )
      const fiber = yield* Effect.forkChild(Effect.scoped(Effect.andThen(runWorker(queue, { stopGrace: "5 seconds", concurrency: 2, claimBatch: 1 }), Effect.never)))
      yield* settle
      assert.strictEqual(yield* Ref.get(claims), 1)
      const stopped = yield* Effect.forkChild(Fiber.interrupt(fiber))
      yield* settle
      yield* TestClock.adjust("2 seconds")
      yield* settle
      assert.deepStrictEqual(yield* Ref.get(done), ["quick"])
      // Still stopping: the slow step has the rest of the grace.
      assert.isUndefined(stopped.pollUnsafe())
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(stopped)
      assert.deepStrictEqual(yield* Ref.get(done), ["quick"])
      assert.strictEqual(yield* Ref.get(claims), 1)
    }))
})

describe("runWorker with completeMany", () => {
  /** A queue whose steps return their item's id and whose outcomes are recorded by `record`, each call logged. */
  const recordingQueue = (
    items: ReadonlyArray<Item>,
    record: (ids: ReadonlyArray<string>) => Effect.Effect<void, unknown>,
    step: (item: Item) => Effect.Effect<string> = (i) => Effect.succeed(i.id)
  ) =>
    Effect.gen(function*() {
      const calls = yield* Ref.make<ReadonlyArray<ReadonlyArray<string>>>([])
      const defects = yield* Ref.make<ReadonlyArray<string>>([])
      const defectOutcomes = yield* Ref.make<ReadonlyArray<Option.Option<string>>>([])
      let served = false
      const queue: WorkQueue<Item, never, string> = {
        name: "Recorded",
        claim: () => Effect.sync(() => served ? [] : (served = true, items)),
        step,
        completeMany: (ids) => Ref.update(calls, (all) => [...all, ids]).pipe(Effect.andThen(record(ids))),
        keyOf: (i) => i.key,
        onDefect: (i, _cause, outcome) =>
          Ref.update(defects, (all) => [...all, i.id]).pipe(Effect.andThen(Ref.update(defectOutcomes, (all) => [...all, outcome])))
      }
      return { queue, calls, defects, defectOutcomes }
    })

  it.effect("the outcomes of a pass are recorded together, each exactly once", () =>
    Effect.gen(function*() {
      const recorded: Array<string> = []
      const items = Array.from({ length: 16 }, (_, i) => item(`t${i}`))
      const { queue, calls, defects } = yield* recordingQueue(items, (ids) => Effect.sync(() => recorded.push(...ids)))
      yield* runWorker(queue, { concurrency: 16, idlePoll: "1 minute" })
      yield* settle
      assert.deepStrictEqual([...recorded].sort(), items.map((i) => i.id).sort())
      // Fewer writes than items: the steps that finished together share one.
      assert.isBelow((yield* Ref.get(calls)).length, items.length)
      assert.deepStrictEqual(yield* Ref.get(defects), [])
    }))

  it.effect("a group whose record dies is recorded item by item: only the bad item is a defect, the others are recorded once", () =>
    Effect.gen(function*() {
      const recorded: Array<string> = []
      const items = Array.from({ length: 8 }, (_, i) => item(`t${i}`))
      const { queue, defects, defectOutcomes } = yield* recordingQueue(items, (ids) =>
        ids.includes("t3") ? Effect.die(new Error("a value the store refuses")) : Effect.sync(() => recorded.push(...ids)))
      yield* runWorker(queue, { concurrency: 8, idlePoll: "1 minute" })
      yield* settle
      assert.deepStrictEqual([...recorded].sort(), ["t0", "t1", "t2", "t4", "t5", "t6", "t7"])
      assert.deepStrictEqual(yield* Ref.get(defects), ["t3"])
      // The step had ended: its outcome goes with the defect, so the item can still be recorded some other way.
      assert.deepStrictEqual(yield* Ref.get(defectOutcomes), [Option.some("t3")])
    }))

  it.effect("a step that dies is a defect without an outcome, and nothing of it is recorded", () =>
    Effect.gen(function*() {
      const recorded: Array<string> = []
      const { queue, defects, defectOutcomes } = yield* recordingQueue(
        [item("a"), item("b")],
        (ids) => Effect.sync(() => recorded.push(...ids)),
        (i) => i.id === "a" ? Effect.die(new Error("poison")) : Effect.succeed(i.id)
      )
      yield* runWorker(queue, { concurrency: 2, idlePoll: "1 minute" })
      yield* settle
      assert.deepStrictEqual(recorded, ["b"])
      assert.deepStrictEqual(yield* Ref.get(defects), ["a"])
      assert.deepStrictEqual(yield* Ref.get(defectOutcomes), [Option.none()])
    }))

  it.effect("a key's slot is given back when its step ends, while the outcome waits for its record", () =>
    Effect.gen(function*() {
      const gate = Latch.makeUnsafe(false)
      const stepped: Array<string> = []
      // Two items of one key with one slot per key; every record waits until the gate opens.
      const { queue, calls } = yield* recordingQueue(
        [item("a", "endpoint"), item("b", "endpoint")],
        () => gate.await,
        (i) => Effect.sync(() => (stepped.push(i.id), i.id))
      )
      yield* runWorker(queue, { concurrency: 2, perKey: 1, idlePoll: "1 minute" })
      yield* settle
      assert.deepStrictEqual(stepped, ["a", "b"])
      gate.openUnsafe()
      yield* settle
      assert.sameMembers((yield* Ref.get(calls)).flat(), ["a", "b"])
    }))

  it.effect("a record that fails (an outage) is left to the leases: no item is recorded or called a defect", () =>
    Effect.gen(function*() {
      const { queue, calls, defects } = yield* recordingQueue([item("a"), item("b")], () => Effect.fail(new Unavailable({ dependency: "database" })))
      yield* runWorker(queue, { idlePoll: "1 minute" })
      yield* settle
      assert.isAtLeast((yield* Ref.get(calls)).length, 1)
      assert.deepStrictEqual(yield* Ref.get(defects), [])
    }))
})

describe("keyed slots", () => {
  it.effect("limit steps per key, and a key's slot is dropped once its last step ends", () =>
    Effect.gen(function*() {
      const slots = makeKeyedSlots(2)
      let running = 0
      let peak = 0
      const step = slots.withSlot("endpoint", Effect.gen(function*() {
        running++
        peak = Math.max(peak, running)
        yield* Effect.sleep("1 second")
        running--
      }))
      const fiber = yield* Effect.forkChild(Effect.all([step, step, step, step, step], { concurrency: "unbounded" }))
      yield* settle
      assert.strictEqual(slots.size(), 1)
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(fiber)
      assert.strictEqual(peak, 2)
      assert.strictEqual(slots.size(), 0)
      // A failing or dying step gives its slot back too.
      const died = yield* slots.withSlot("other", Effect.die(new Error("boom"))).pipe(Effect.sandbox, Effect.flip)
      assert.isTrue(Cause.hasDies(died))
      assert.strictEqual(slots.size(), 0)
    }))
})
