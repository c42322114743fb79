import { type AccessLogEntry, AccessLogSink } from "@atrium/adapters-http"
import { Effect, Layer } from "effect"
import { RequestLogBuffer } from "./request-log-buffer.ts"

const flushEveryMillis = 50

// One JSON line per request, gathered and written once per 50 ms and on shutdown.
const stdoutSink = Effect.gen(function*() {
  let pending: Array<string> = []
  const flush = () => {
    if (pending.length === 0) return
    const lines = pending
    pending = []
    process.stdout.write(`${lines.join("\n")}\n`)
  }
  const timer = setInterval(flush, flushEveryMillis)
  // The timer alone must not keep the process alive.
  timer.unref()
  yield* Effect.addFinalizer(() => Effect.sync(() => {
    clearInterval(timer)
    flush()
  }))
  return (entry: AccessLogEntry) => {
    pending.push(`{"message":"request","level":"INFO","timestamp":"${new Date(Date.now()).toISOString()}","annotations":${JSON.stringify(entry)}}`)
  }
})

/**
 * The access log on stdout: one JSON line per request, shaped like the app's other log lines, written in batches
 * (one write per 50 ms and on shutdown) so a busy server does not pay a write, nor a general-purpose formatter, per request.
 */
export const AccessLogStdout = Layer.effect(AccessLogSink, stdoutSink)

/** The stdout access log and, through the same hook, the `/api/v1` request log of each key (`RequestLogBuffer`). */
export const AccessLogWithRequestLog = Layer.effect(AccessLogSink, Effect.gen(function*() {
  const stdout = yield* stdoutSink
  const requestLog = yield* RequestLogBuffer
  return (entry: AccessLogEntry) => {
    stdout(entry)
    requestLog.observe(entry)
  }
}))

/** The access log this server runs: stdout always; the per-key request log unless the operator turned it off (`ATRIUM_REQUEST_LOG`). */
export const accessLogLayer = (requestLog: boolean) =>
  requestLog ? AccessLogWithRequestLog.pipe(Layer.provide(RequestLogBuffer.layer)) : AccessLogStdout
