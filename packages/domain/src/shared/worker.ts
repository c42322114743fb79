import { Cause, Clock, Duration, Effect, Fiber, FiberSet, Latch, Option, Semaphore } from "effect"
import type { Array as Arr, Scope } from "effect"
import { makeBatcher } from "./batcher.ts"
import type { Unavailable } from "./errors.ts"

/**
 * Leased background work of one kind (webhook deliveries, AI tasks, schedule firings…): rows any process may claim
 * with `FOR UPDATE SKIP LOCKED` leases, each advanced by one whole domain step. A crashed process's leases expire and
 * another process takes the work, so every step must be safe to run again (settle-once in the domain).
 */
export interface WorkQueue<Item, R = never, Done = unknown> {
  /** Names the queue in logs and spans. */
  readonly name: string
  /** Leases up to `limit` due items. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<Item>, Unavailable, R>
  /**
   * One whole step of one item: the domain calls its own ports (transport, provider) and records the outcome, or, with
   * `completeMany`, returns the outcome for the worker to record together with others.
   */
  readonly step: (item: Item) => Effect.Effect<Done, unknown, R>
  /**
   * Records the outcomes of many steps at once (e.g. one statement for the attempts of a pass). The worker hands over
   * the outcomes of steps that finished together (group commit: whatever finished while the previous call ran); a call
   * that dies is repeated item by item, so a bad item's defect is its own (`onDefect`, with the outcome). An item holds
   * one of `concurrency`'s slots until its outcome is recorded (a crash before that leaves it to its lease), but its
   * key's slot (`perKey`) only while its step runs.
   */
  readonly completeMany?: ((outcomes: Arr.NonEmptyReadonlyArray<Done>) => Effect.Effect<unknown, unknown, R>) | undefined
  /** Items sharing a key (e.g. an endpoint) are limited to `perKey` steps at once, so one slow key never takes every slot. */
  readonly keyOf?: ((item: Item) => string) | undefined
  /**
   * Records a step that died (a defect, not an expected failure such as an outage) against that item only, e.g. fails
   * that task; without it the item's lease brings it back. `outcome` is the step's when the step ended and recording
   * it (`completeMany`) died.
   */
  readonly onDefect?: ((item: Item, cause: Cause.Cause<unknown>, outcome: Option.Option<Done>) => Effect.Effect<unknown, unknown, R>) | undefined
  /**
   * Opened when new work is announced (e.g. Postgres `NOTIFY` from any process): an idle worker claims at once instead
   * of at its next poll. The worker closes it before each claim, so an announcement during a claim is not lost.
   */
  readonly wakeUp?: Latch.Latch | undefined
}

/** How hard one process works a queue. */
export interface WorkerOptions {
  /** Steps in flight at once in this process. */
  readonly concurrency: number
  /** Steps in flight at once for one key (`keyOf`). */
  readonly perKey: number
  /** How long to wait before looking again when nothing was due. */
  readonly idlePoll: Duration.Input
  /**
   * With `wakeUp`: how long an idle worker waits for an announcement before looking anyway, for what no announcement
   * brings (an item due later, a lease run out, an announcement lost). At least `idlePoll`.
   */
  readonly announcedPoll: Duration.Input
  /** How long to back off after a pass that failed (an outage). */
  readonly failureBackoff: Duration.Input
  /** A claimed item that waited longer than this for a slot is left to its lease, never run late twice. */
  readonly staleAfter: Duration.Input
  /**
   * While steps are in flight, claim only once this many slots are free, so claims come in batches (one statement for
   * many items) rather than one per finished step. An idle worker claims at once. Default: a quarter of `concurrency`.
   */
  readonly claimBatch?: number | undefined
  /**
   * With `completeMany`: how long a finished step's outcome waits for others to share its write, so outcomes come in
   * groups of about a pass rather than one or two per statement. Default: none (whatever finished during the last write).
   */
  readonly completeLinger?: Duration.Input | undefined
  /**
   * When the worker's scope closes it claims no more and lets the steps in flight finish (and record) for this long;
   * those still running then are interrupted and left to their leases. Default: none (interrupted at once).
   */
  readonly stopGrace?: Duration.Input | undefined
}

/** Defaults for a 2-core machine. */
export const defaultWorkerOptions: WorkerOptions = {
  concurrency: 64,
  perKey: 8,
  idlePoll: "100 millis",
  announcedPoll: "1 second",
  failureBackoff: "1 second",
  staleAfter: "30 seconds"
}

/** Per-key slots that disappear when their last user leaves, so the map never grows with the number of keys seen. */
export interface KeyedSlots {
  /** Runs `effect` holding one of `key`'s slots. */
  readonly withSlot: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Keys with a step running or waiting (for tests and metrics). */
  readonly size: () => number
}

/** Slots of `permits` per key. */
export const makeKeyedSlots = (permits: number): KeyedSlots => {
  const slots = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
  return {
    withSlot: (key, effect) =>
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
      ),
    size: () => slots.size
  }
}

const interruptOnly = (cause: Cause.Cause<unknown>) => Cause.hasInterruptsOnly(cause)

/**
 * THE worker loop: claims what is due up to the free capacity, runs each item as its own unit of failure, loops on
 * the `Clock`. A failed pass (the database is down) is logged and backed off; a defect in one item never touches
 * another and is recorded against that item by `onDefect`. Runs until its scope closes, which stops its claims and
 * waits up to `stopGrace` for the steps in flight; interrupting it aborts them, and their leases bring them back.
 */
export const runWorker = <Item, R, Done = unknown>(
  queue: WorkQueue<Item, R, Done>,
  options: Partial<WorkerOptions> = {}
): Effect.Effect<void, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const settings = { ...defaultWorkerOptions, ...options }
    // New items are announced when the queue has a `wakeUp`: polling then only finds what comes due by itself.
    const idle = queue.wakeUp === undefined
      ? Duration.fromInputUnsafe(settings.idlePoll)
      : Duration.max(Duration.fromInputUnsafe(settings.idlePoll), Duration.fromInputUnsafe(settings.announcedPoll))
    const backoff = Duration.fromInputUnsafe(settings.failureBackoff)
    const staleMillis = Duration.toMillis(Duration.fromInputUnsafe(settings.staleAfter))
    const running = yield* FiberSet.make()
    const slots = makeKeyedSlots(Math.max(1, settings.perKey))
    const concurrency = Math.max(1, settings.concurrency)
    const claimBatch = Math.min(concurrency, Math.max(1, settings.claimBatch ?? Math.ceil(concurrency / 4)))
    let inFlight = 0
    // Wakes the loop when a step ends while every slot was taken.
    const wake = Latch.makeUnsafe(false)
    const completeMany = queue.completeMany
    // Two calls in flight at most: while one records, the next group gathers.
    const recorder = completeMany === undefined
      ? undefined
      : yield* makeBatcher((outcomes: Arr.NonEmptyReadonlyArray<Done>) => Effect.asVoid(completeMany(outcomes)), {
        maxBatch: concurrency,
        writers: 2,
        linger: settings.completeLinger
      })

    const recordDefect = (item: Item, cause: Cause.Cause<unknown>, outcome: Option.Option<Done>) =>
      queue.onDefect === undefined ? Effect.void : queue.onDefect(item, cause, outcome).pipe(
        Effect.catchCause((recordCause) =>
          interruptOnly(recordCause) ? Effect.failCause(recordCause) : Effect.logError(`${queue.name}: could not record a failed step`, recordCause)
        )
      )

    // An expected failure (an outage) is the lease's business; a defect belongs to this item alone.
    const isolate = (item: Item, outcome: Option.Option<Done>) => (cause: Cause.Cause<unknown>) => {
      if (interruptOnly(cause)) return Effect.failCause(cause)
      if (!Cause.hasDies(cause)) return Effect.logWarning(`${queue.name}: step failed; the item is retried when its lease ends`, cause)
      return Effect.logError(`${queue.name}: step died; recorded against its item only`, cause).pipe(Effect.andThen(recordDefect(item, cause, outcome)))
    }

    // A claim that waited past its lease's useful life (for its key's slot) is left to expire rather than acted on late.
    const stepUnlessStale = (item: Item, claimedAt: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => now - claimedAt > staleMillis ? Effect.succeedNone : Effect.asSome(queue.step(item)))

    const isolated = (item: Item, claimedAt: number) =>
      Effect.gen(function*() {
        const step = stepUnlessStale(item, claimedAt)
        // The key's slot is held while the step runs, not while its outcome waits for the next write.
        const outcome = yield* (queue.keyOf === undefined ? step : slots.withSlot(queue.keyOf(item), step)).pipe(
          Effect.catchCause((cause) => Effect.as(isolate(item, Option.none())(cause), Option.none<Done>()))
        )
        if (recorder !== undefined && Option.isSome(outcome)) yield* recorder.write(outcome.value).pipe(Effect.catchCause(isolate(item, outcome)))
      })

    const process = (item: Item, claimedAt: number) =>
      isolated(item, claimedAt).pipe(Effect.ensuring(Effect.sync(() => {
        inFlight--
        wake.openUnsafe()
      })))

    const pass = Effect.gen(function*() {
      // Closed before looking, so a step ending after the look still wakes the wait below.
      wake.closeUnsafe()
      const free = concurrency - inFlight
      // Too few slots free to be worth a claim: wait until a step ends.
      if (free <= 0 || (inFlight > 0 && free < claimBatch)) return yield* wake.await
      queue.wakeUp?.closeUnsafe()
      const claimed = yield* queue.claim(free)
      const claimedAt = yield* Clock.currentTimeMillis
      inFlight += claimed.length
      for (const item of claimed) yield* FiberSet.run(running, process(item, claimedAt))
      // Fewer than asked for: nothing else was due, so look again when work is announced (or at the poll), not at once.
      // An announcement made since the claim began has opened `wakeUp` already; queues without one claim again at once.
      if (claimed.length === 0) {
        yield* queue.wakeUp === undefined ? Effect.sleep(idle) : Effect.timeoutOption(queue.wakeUp.await, idle)
      } else if (claimed.length < free && queue.wakeUp !== undefined) {
        yield* Effect.timeoutOption(queue.wakeUp.await, idle)
      }
    }).pipe(
      Effect.catchCause((cause) =>
        interruptOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logWarning(`${queue.name}: pass failed; retrying after ${Duration.format(backoff)}`, cause).pipe(Effect.andThen(Effect.sleep(backoff)))
      ),
      Effect.withSpan(`${queue.name}.pass`)
    )

    const loop = yield* Effect.forever(pass).pipe(Effect.forkScoped)
    const grace = Duration.fromInputUnsafe(settings.stopGrace ?? Duration.zero)
    // Runs before the steps are interrupted (finalizers run last-added first): a stopping process finishes its work.
    if (Duration.isGreaterThan(grace, Duration.zero)) {
      yield* Effect.addFinalizer(() => Fiber.interrupt(loop).pipe(Effect.andThen(FiberSet.awaitEmpty(running)), Effect.timeoutOption(grace)))
    }
  })

/**
 * One kind of background work as data, for the one worker registry (`Domain.work`): its queue, how hard one process
 * works it, and the channel that announces new items (Postgres `NOTIFY`), when there is one.
 */
export interface Work {
  readonly name: string
  readonly announcedOn: string | undefined
  /** Runs the queue on `runWorker` until its scope closes; `wakeUp` opens when `announcedOn` announces new items. */
  readonly run: (wakeUp: Latch.Latch | undefined, tuning?: Partial<WorkerOptions>) => Effect.Effect<void, never, Scope.Scope>
}

/** `queue` as a `Work`, worked with `options` (a host's tuning goes over them). */
export const declareWork = <Item, Done>(queue: WorkQueue<Item, never, Done>, options: Partial<WorkerOptions>, announcedOn?: string): Work => ({
  name: queue.name,
  announcedOn,
  run: (wakeUp, tuning) => runWorker({ ...queue, wakeUp }, { ...options, ...tuning })
})
