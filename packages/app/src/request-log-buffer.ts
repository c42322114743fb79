import type { AccessLogEntry } from "@atrium/adapters-http"
import { type RequestLogRecord, RequestLogs } from "@atrium/domain"
import { Array as Arr, Context, type Duration, Effect, Exit, Layer, Schedule, Semaphore } from "effect"

/** How the request-log buffer flushes: on a timer, in inserts of at most `maxBatch` lines, holding at most `maxPending`. */
export interface RequestLogBufferOptions {
  readonly flushEvery: Duration.Input
  readonly maxBatch: number
  readonly maxPending: number
}

const defaults: RequestLogBufferOptions = { flushEvery: "1 second", maxBatch: 4000, maxPending: 200_000 }

/**
 * The `/api/v1` request log, gathered off the request path: the access-log hook appends one small record per request
 * made with an API key, and a fiber writes what gathered once per `flushEvery` (one multi-row insert per `maxBatch`)
 * and on shutdown. Lines still in the buffer when the process crashes are lost; a database outage, or a database slower
 * than the traffic, keeps them (up to `maxPending`, the oldest dropped first, `maxBatch` at a time) until it catches up.
 */
export class RequestLogBuffer extends Context.Service<RequestLogBuffer, {
  /** Takes an access-log entry; anything but a keyed `/api/v1` request is ignored. Synchronous and allocation-light. */
  readonly observe: (entry: AccessLogEntry) => void
  /** Writes everything gathered so far (tests and shutdown). */
  readonly flush: Effect.Effect<void>
}>()("@atrium/app/RequestLogBuffer") {
  static readonly layerWith = (options: Partial<RequestLogBufferOptions> = {}) => Layer.effect(RequestLogBuffer, Effect.gen(function*() {
    const { flushEvery, maxBatch, maxPending } = { ...defaults, ...options }
    const logs = yield* RequestLogs
    let pending: Array<RequestLogRecord> = []
    let dropped = 0
    // One flush at a time (the timer's and shutdown's), so no batch is taken twice.
    const lock = yield* Semaphore.make(1)

    // Takes what gathered at once and writes it in slices: one pass over it, however long the backlog grew.
    const writeBatches = Effect.gen(function*() {
      const taken = pending
      pending = []
      for (let from = 0; from < taken.length; from += maxBatch) {
        const batch = taken.slice(from, from + maxBatch)
        if (!Arr.isReadonlyArrayNonEmpty(batch)) return
        const written = yield* Effect.exit(logs.record(batch))
        if (Exit.isSuccess(written)) yield* Effect.logDebug(`request log: ${batch.length} lines written`)
        if (Exit.isFailure(written) && Exit.hasDies(written)) {
          // Refused as a bug, not an outage: kept, the batch would fail every round and the backlog would only grow.
          yield* Effect.logError(`request log: ${batch.length} lines dropped, the database refused them`, written.cause)
          continue
        }
        if (Exit.isFailure(written)) {
          // Down: keep the lines for the next round, ahead of what arrived meanwhile (within `maxPending`).
          const kept = taken.slice(from).concat(pending)
          dropped += Math.max(0, kept.length - maxPending)
          pending = kept.slice(-maxPending)
          return yield* Effect.logWarning(`request log not written (${pending.length} lines kept for the next try)`)
        }
      }
    })
    const flush = Effect.gen(function*() {
      if (dropped > 0) {
        yield* Effect.logWarning(`request log: ${dropped} lines dropped while the database could not take them`)
        dropped = 0
      }
      yield* writeBatches
    }).pipe(lock.withPermits(1), Effect.withSpan("RequestLogBuffer.flush"))

    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(flushEvery)))
    yield* Effect.addFinalizer(() => flush)

    const observe = (entry: AccessLogEntry) => {
      if (entry.keyId === null || entry.workspaceId === null || entry.route === null || !entry.route.startsWith("/api/v1/")) return
      // Full: the oldest `maxBatch` lines go at once, so a request never pays for moving the whole backlog.
      if (pending.length >= maxPending) {
        const over = Math.min(pending.length, Math.max(1, maxBatch))
        pending = pending.slice(over)
        dropped += over
      }
      pending.push({
        workspaceId: entry.workspaceId,
        keyId: entry.keyId,
        method: entry.method,
        route: entry.route,
        status: entry.status,
        durationMs: entry.durationMs,
        requestId: entry.requestId,
        at: Date.now()
      })
    }
    return RequestLogBuffer.of({ observe, flush })
  }))

  static readonly layer = RequestLogBuffer.layerWith()
}
