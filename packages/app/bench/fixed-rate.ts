// An open-loop load: requests sent at a fixed pace whatever the answers' pace, each one's latency counted from when it
// was due rather than from when a connection was free, so a stall shows in full. autocannon's `overallRate` sends each
// second's quota in a burst at the start of the second (and pads its histogram for coordinated omission at 1 ms), so
// its percentiles are those of a saturated server.
import { Agent, request } from "node:http"
import { percentile } from "./percentiles.ts"

/** What one fixed-rate load sent and how long its answers took (ms, from each request's due time). */
export interface FixedRateResult {
  readonly sent: number
  readonly completed: number
  readonly non2xx: number
  readonly errors: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  /** p99 from when each request was written: the server's part, without the time the generator itself sent late. */
  readonly p99FromSend: number
  /** How late the generator wrote its latest request (ms): when it is starved of CPU, the due-time figures are its own. */
  readonly maxLateness: number
}

export interface FixedRateOptions {
  readonly url: string
  readonly method: "GET" | "POST"
  /** The headers of the i-th request. */
  readonly headers: (i: number) => Record<string, string>
  readonly body?: string | undefined
  /** Requests per second, evenly spaced. */
  readonly rate: number
  readonly seconds: number
  /** Most requests in flight; one beyond waits for a socket, and that wait counts in its latency. */
  readonly connections: number
}

/** Sends `rate` requests a second for `seconds`, evenly spaced, and resolves once every answer is in. */
export const fixedRate = (options: FixedRateOptions): Promise<FixedRateResult> =>
  new Promise((resolve) => {
    const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
    const total = Math.max(1, Math.round(options.rate * options.seconds))
    const spacing = 1000 / options.rate
    const latencies: Array<number> = []
    const fromSend: Array<number> = []
    let maxLateness = 0
    let sent = 0
    let finished = 0
    let non2xx = 0
    let errors = 0
    const started = performance.now()
    const done = () => {
      finished++
      if (finished < total) return
      agent.destroy()
      resolve({
        sent,
        completed: latencies.length,
        non2xx,
        errors,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.reduce((a, b) => Math.max(a, b), 0),
        p99FromSend: percentile(fromSend, 99),
        maxLateness
      })
    }
    const send = (i: number) => {
      const due = started + i * spacing
      const sentAt = performance.now()
      maxLateness = Math.max(maxLateness, sentAt - due)
      const req = request(options.url, { method: options.method, agent, headers: options.headers(i) }, (res) => {
        res.resume()
        res.on("end", () => {
          const now = performance.now()
          latencies.push(now - due)
          fromSend.push(now - sentAt)
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx++
          done()
        })
      })
      req.on("error", () => {
        errors++
        done()
      })
      req.end(options.body)
    }
    // A 1 ms timer sends every request that has come due: no busy loop on a shared machine, at most 1 ms late (and that
    // lateness counts, as the latency runs from the due time).
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - started) / spacing) + 1)
      while (sent < due) send(sent++)
      if (sent < total) setTimeout(tick, 1)
    }
    tick()
  })
