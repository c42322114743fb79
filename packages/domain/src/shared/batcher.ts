import { Cause, Deferred, Duration, Effect, Exit, Queue } from "effect"
import type { Array as Arr, Scope } from "effect"

/** Writes items in groups: while one group is written the next gathers, so groups grow with the load (group commit). */
export interface Batcher<A, E> {
  /** Adds `item` to the next group and waits until that group is written; fails as the group's write failed. */
  readonly write: (item: A) => Effect.Effect<void, E>
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
 * A batcher over `writeAll`, running for the enclosing scope. A group that dies (one bad item, e.g. a value the store
 * refuses) is written again item by item, so the bad item fails alone; a group that fails (an outage) fails together.
 */
export const makeBatcher = <A, E, R>(
  writeAll: (items: Arr.NonEmptyReadonlyArray<A>) => Effect.Effect<void, E, R>,
  options: BatcherOptions
): Effect.Effect<Batcher<A, E>, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<void, E>]>()

    const settle = (entries: ReadonlyArray<readonly [A, Deferred.Deferred<void, E>]>, exit: Exit.Exit<void, E>) =>
      Effect.forEach(entries, ([, done]) => Deferred.done(done, exit), { discard: true })

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
      const [first, ...rest] = group
      if (first === undefined) return
      const exit = yield* Effect.exit(writeAll([first[0], ...rest.map(([item]) => item)]))
      if (Exit.isSuccess(exit) || rest.length === 0 || !Cause.hasDies(exit.cause)) return yield* settle(group, exit)
      for (const entry of group) yield* settle([entry], yield* Effect.exit(writeAll([entry[0]])))
    })

    yield* Effect.forkScoped(Effect.forever(writeGroup)).pipe(Effect.replicateEffect(Math.max(1, options.writers)))

    const write = (item: A) =>
      Effect.gen(function*() {
        const done = yield* Deferred.make<void, E>()
        yield* Queue.offer(queue, [item, done])
        return yield* Deferred.await(done)
      })
    return { write }
  })
