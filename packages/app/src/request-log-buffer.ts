import type { AccessLogEntry } from "@atrium/adapters-http"
import { type RequestLogRecord, RequestLogs } from "@atrium/domain"
import { Array as Arr, Context, type Duration, Effect, Layer, Schedule, Semaphore } from "effect"

/** How the request-log buffer flushes: on a timer, in inserts of at most `maxBatch` lines, holding at most `maxPending`. */
export interface RequestLogBufferOptions {
  readonly flushEvery: Duration.Input
  readonly maxBatch: number
  readonly maxPending: number
}

const defaults: RequestLogBufferOptions = { flushEvery: "1 second", maxBatch: 5000, maxPending: 200_000 }

/**
 * The `/api/v1` request log, gathered off the request path: the access-log hook appends one small record per request
 * made with an API key, and a fiber writes what gathered once per `flushEvery` (one multi-row insert per `maxBatch`)
 * and on shutdown. Lines still in the buffer when the process crashes are lost; a database outage keeps them (up to
 * `maxPending`, the oldest dropped first) until it answers again.
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

    const writeBatches = Effect.gen(function*() {
      while (pending.length > 0) {
        const batch = pending.slice(0, maxBatch)
        if (!Arr.isReadonlyArrayNonEmpty(batch)) return
        const written = yield* Effect.result(logs.record(batch))
        // Down: keep the lines for the next round (what arrived meanwhile stays behind them).
        if (written._tag === "Failure") return yield* Effect.logWarning(`request log not written (${pending.length} lines kept for the next try)`)
        pending = pending.slice(batch.length)
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
      if (pending.length >= maxPending) {
        pending.shift()
        dropped++
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
