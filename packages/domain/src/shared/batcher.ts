import { Array as Arr, Cause, Deferred, Duration, Effect, Exit, Queue } from "effect"
import type { Scope } from "effect"

/** Writes items in groups: while one group is written the next gathers, so groups grow with the load (group commit). */
export interface Batcher<A, E> {
  /** Adds `item` to the next group and waits until that group is written; fails as the group's write failed. */
  readonly write: (item: A) => Effect.Effect<void, E>
}

/** Runs calls in groups like `Batcher`, each call answered with its own result from its group's run. */
export interface BatchedCall<A, B, E> {
  /** Adds `item` to the next group and waits for its result; fails as the group's run failed. */
  readonly call: (item: A) => Effect.Effect<B, E>
}

/** How groups are formed. */
export interface BatcherOptions {
  /** Most items in one write. */
  readonly maxBatch: number
  /** Writes in flight at once. */
  readonly writers: number
  /**
   * How long a group that is not yet full waits for more items once its first arrived (default none). A few
   * milliseconds turn a stream of single items into groups without delaying anything by more than that.
   */
  readonly linger?: Duration.Input | undefined
}

/**
 * Calls of `runAll` in groups, running for the enclosing scope; `runAll` answers one result per item, in order. A
 * group that dies (one bad item, e.g. a value the store refuses) is run again item by item, so the bad item fails
 * alone; a group that fails (an outage) fails together.
 */
export const makeBatchedCall = <A, B, E, R>(
  runAll: (items: Arr.NonEmptyReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E, R>,
  options: BatcherOptions
): Effect.Effect<BatchedCall<A, B, E>, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<B, E>]>()

    type Entry = readonly [A, Deferred.Deferred<B, E>]
    const settle = (pairs: ReadonlyArray<readonly [Entry, B]>) => Effect.forEach(pairs, ([[, done], answer]) => Deferred.succeed(done, answer), { discard: true })

    // Each caller paired with its answer; a result list that does not match its items is a bug of `runAll`, a defect.
    const run = (entries: Arr.NonEmptyReadonlyArray<Entry>) =>
      runAll(Arr.map(entries, ([item]) => item)).pipe(Effect.flatMap((answers) =>
        answers.length === entries.length
          ? Effect.succeed(Arr.zip(entries, answers))
          : Effect.die(new Error(`a batch of ${entries.length} answered ${answers.length} results`))
      ))

    const maxBatch = Math.max(1, options.maxBatch)
    const linger = options.linger === undefined ? Duration.zero : Duration.fromInputUnsafe(options.linger)
    const waits = Duration.isGreaterThan(linger, Duration.zero)
    const writeGroup = Effect.gen(function*() {
      const taken = yield* Queue.takeBetween(queue, 1, maxBatch)
      // Not full: give the items finishing right behind these a moment to join the same write.
      const late = waits && taken.length < maxBatch
        ? yield* Effect.sleep(linger).pipe(
          Effect.andThen(Queue.size(queue)),
          Effect.flatMap((waiting) => waiting > 0 ? Queue.takeBetween(queue, 1, maxBatch - taken.length) : Effect.succeed([]))
        )
        : []
      const group = [...taken, ...late]
      if (!Arr.isReadonlyArrayNonEmpty(group)) return
      const exit = yield* Effect.exit(run(group))
      if (Exit.isSuccess(exit)) return yield* settle(exit.value)
      if (group.length === 1 || !Cause.hasDies(exit.cause)) {
        return yield* Effect.forEach(group, ([, done]) => Deferred.failCause(done, exit.cause), { discard: true })
      }
      for (const entry of group) {
        const alone = yield* Effect.exit(run([entry]))
        yield* Exit.isSuccess(alone) ? settle(alone.value) : Deferred.failCause(entry[1], alone.cause)
      }
    })

    yield* Effect.forkScoped(Effect.forever(writeGroup)).pipe(Effect.replicateEffect(Math.max(1, options.writers)))

    const call = (item: A) =>
      Effect.gen(function*() {
        const done = yield* Deferred.make<B, E>()
        yield* Queue.offer(queue, [item, done])
        return yield* Deferred.await(done)
      })
    return { call }
  })

/**
 * A batcher over `writeAll`, running for the enclosing scope. A group that dies (one bad item, e.g. a value the store
 * refuses) is written again item by item, so the bad item fails alone; a group that fails (an outage) fails together.
 */
export const makeBatcher = <A, E, R>(
  writeAll: (items: Arr.NonEmptyReadonlyArray<A>) => Effect.Effect<void, E, R>,
  options: BatcherOptions
): Effect.Effect<Batcher<A, E>, never, Scope.Scope | R> =>
  makeBatchedCall((items: Arr.NonEmptyReadonlyArray<A>) => Effect.as(writeAll(items), items.map(() => undefined)), options).pipe(
    Effect.map((batched) => ({ write: batched.call }))
  )
