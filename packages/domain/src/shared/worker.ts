import { Cause, Clock, Duration, Effect, FiberSet, Semaphore } from "effect"
import type { Scope } from "effect"
import type { Unavailable } from "./errors.ts"

/**
 * Leased background work of one kind (webhook deliveries, AI tasks, schedule firings…): rows any process may claim
 * with `FOR UPDATE SKIP LOCKED` leases, each advanced by one whole domain step. A crashed process's leases expire and
 * another process takes the work, so every step must be safe to run again (settle-once in the domain).
 */
export interface WorkQueue<Item> {
  /** Names the queue in logs and spans. */
  readonly name: string
  /** Leases up to `limit` due items. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<Item>, Unavailable>
  /** One whole step of one item: the domain calls its own ports (transport, provider) and records the outcome. */
  readonly step: (item: Item) => Effect.Effect<void, unknown>
  /** Items sharing a key (e.g. an endpoint) are limited to `perKey` steps at once, so one slow key never takes every slot. */
  readonly keyOf?: ((item: Item) => string) | undefined
  /** Records a step that failed unexpectedly against that item only (e.g. fails that task); its lease covers the rest. */
  readonly onDefect?: ((item: Item, cause: Cause.Cause<unknown>) => Effect.Effect<void, unknown>) | undefined
}

/** How hard one process works a queue. */
export interface WorkerOptions {
  /** Steps in flight at once in this process. */
  readonly concurrency: number
  /** Steps in flight at once for one key (`keyOf`). */
  readonly perKey: number
  /** How long to wait before looking again when nothing was due. */
  readonly idlePoll: Duration.Input
  /** How long to back off after a pass that failed (an outage). */
  readonly failureBackoff: Duration.Input
  /** A claimed item that waited longer than this for a slot is left to its lease, never run late twice. */
  readonly staleAfter: Duration.Input
}

/** Defaults for a 2-core machine. */
export const defaultWorkerOptions: WorkerOptions = {
  concurrency: 64,
  perKey: 8,
  idlePoll: "100 millis",
  failureBackoff: "1 second",
  staleAfter: "30 seconds"
}

// Per-key slots that disappear when their last user leaves, so the map never grows with the number of keys seen.
const keyedSlots = (permits: number) => {
  const slots = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
  return <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const slot = slots.get(key) ?? { semaphore: Semaphore.makeUnsafe(permits), users: 0 }
        slot.users++
        slots.set(key, slot)
        return slot
      }),
      (slot) => slot.semaphore.withPermits(1)(effect),
      (slot) =>
        Effect.sync(() => {
          slot.users--
          if (slot.users === 0) slots.delete(key)
        })
    )
}

const notInterruptOnly = (cause: Cause.Cause<unknown>) => !Cause.hasInterruptsOnly(cause)

/**
 * THE worker loop: claims what is due up to the free capacity, runs each item as its own unit of failure, loops on
 * the `Clock`. A failed pass (the database is down) is logged and backed off; a defect in one item never touches another.
 * Runs until its scope closes; interrupting it aborts steps in flight, whose leases bring them back.
 */
export const runWorker = <Item>(queue: WorkQueue<Item>, options: Partial<WorkerOptions> = {}): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const settings = { ...defaultWorkerOptions, ...options }
    const idle = Duration.fromInputUnsafe(settings.idlePoll)
    const staleMillis = Duration.toMillis(Duration.fromInputUnsafe(settings.staleAfter))
    const running = yield* FiberSet.make()
    const withKey = keyedSlots(settings.perKey)
    let inFlight = 0

    const isolated = (item: Item, claimedAt: number) =>
      Effect.gen(function*() {
        // A claim that waited past its lease's useful life is left to expire rather than acted on late.
        if ((yield* Clock.currentTimeMillis) - claimedAt > staleMillis) return
        yield* queue.step(item)
      }).pipe(
        Effect.catchCause((cause) =>
          notInterruptOnly(cause)
            ? Effect.logWarning(`${queue.name}: step failed; the item is retried when its lease ends`, cause).pipe(
              Effect.andThen(queue.onDefect === undefined ? Effect.void : queue.onDefect(item, cause)),
              Effect.catchCause((recordCause) =>
                notInterruptOnly(recordCause) ? Effect.logWarning(`${queue.name}: could not record a failed step`, recordCause) : Effect.failCause(recordCause)
              )
            )
            : Effect.failCause(cause)
        )
      )

    const process = (item: Item, claimedAt: number) => {
      const keyed = queue.keyOf === undefined ? isolated(item, claimedAt) : withKey(queue.keyOf(item), isolated(item, claimedAt))
      return keyed.pipe(Effect.ensuring(Effect.sync(() => {
        inFlight--
      })))
    }

    const pass = Effect.gen(function*() {
      const free = settings.concurrency - inFlight
      if (free <= 0) return yield* Effect.sleep("5 millis")
      const claimed = yield* queue.claim(free)
      const claimedAt = yield* Clock.currentTimeMillis
      inFlight += claimed.length
      for (const item of claimed) yield* FiberSet.run(running, process(item, claimedAt))
      if (claimed.length === 0) yield* Effect.sleep(idle)
    }).pipe(
      Effect.catchCause((cause) =>
        notInterruptOnly(cause)
          ? Effect.logWarning(`${queue.name}: pass failed; retrying`, cause).pipe(Effect.andThen(Effect.sleep(settings.failureBackoff)))
          : Effect.failCause(cause)
      ),
      Effect.withSpan(`${queue.name}.pass`)
    )

    yield* Effect.forever(pass).pipe(Effect.forkScoped)
  })
