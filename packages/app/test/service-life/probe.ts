// One request on a connection of its own, classified: what a client waiting at most `timeoutMs` saw.
import { request } from "node:http"
import { createServer } from "node:net"

/** `refused`: nothing listened; `answered`: a whole response (any status); `hung`: accepted, no answer in time. */
export type Outcome = "refused" | "answered" | "hung" | `failed: ${string}`

/** Fires `GET path` (or with `init` a method, headers and body) at 127.0.0.1:port and says how it went. */
export const probe = (
  port: number,
  path: string,
  timeoutMs: number,
  init: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {}
): Promise<{ readonly outcome: Outcome; readonly status?: number; readonly body?: string }> =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, method: init.method ?? "GET", headers: init.headers, agent: false }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => body += chunk)
      res.on("end", () => resolve({ outcome: "answered", status: res.statusCode ?? 0, body }))
      res.on("error", (error) => resolve({ outcome: `failed: ${error.message}` }))
    })
    req.setTimeout(timeoutMs, () => {
      resolve({ outcome: "hung" })
      req.destroy()
    })
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ outcome: error.code === "ECONNREFUSED" ? "refused" : `failed: ${error.code ?? error.message}` }))
    req.end(init.body)
  })

/** A loopback port free right now (taken by nobody until the server binds it, a moment later). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Counts of each outcome. */
export const tally = (outcomes: ReadonlyArray<Outcome>): Record<string, number> =>
  outcomes.reduce<Record<string, number>>((counts, outcome) => ({ ...counts, [outcome]: (counts[outcome] ?? 0) + 1 }), {})
