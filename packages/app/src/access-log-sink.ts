import { type AccessLogEntry, AccessLogSink } from "@atrium/adapters-http"
import { Effect, Layer } from "effect"
import { RequestLogBuffer } from "./request-log-buffer.ts"

const flushEveryMillis = 50

// One JSON line per request, written once per 50 ms and on shutdown. The entries wait as they are and become lines
// in the write: a waiting line (its JSON and the strings around it) weighs several times its entry, and what waits a few
// scavenges is promoted to the old generation, which the full collector then has to mark.
const stdoutSink = Effect.gen(function*() {
  let entries: Array<AccessLogEntry> = []
  let times: Array<number> = []
  // Many requests end within the same millisecond: its timestamp is formatted once.
  let stampedAt = 0
  let stamp = ""
  const lineOf = (entry: AccessLogEntry, at: number) => {
    if (at !== stampedAt) {
      stampedAt = at
      stamp = new Date(at).toISOString()
    }
    return `{"message":"request","level":"INFO","timestamp":"${stamp}","annotations":${JSON.stringify(entry)}}`
  }
  const flush = () => {
    if (entries.length === 0) return
    const taken = entries
    const at = times
    entries = []
    times = []
    process.stdout.write(`${taken.map((entry, i) => lineOf(entry, at[i] ?? stampedAt)).join("\n")}\n`)
  }
  const timer = setInterval(flush, flushEveryMillis)
  // The timer alone must not keep the process alive.
  timer.unref()
  yield* Effect.addFinalizer(() => Effect.sync(() => {
    clearInterval(timer)
    flush()
  }))
  // The line's timestamp is when the request ended, not when its batch is written.
  return (entry: AccessLogEntry) => {
    entries.push(entry)
    times.push(Date.now())
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
