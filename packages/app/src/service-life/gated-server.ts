import { problemType } from "@atrium/adapters-http"
import { serverRequestId } from "@atrium/domain"
import { SecureRandom } from "effect/crypto"
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http"

/** A Node HTTP server that never leaves a connection it accepted unanswered, and that lets go of its connections on stop. */
export interface GatedServer {
  readonly server: Server
  /** From now on connections close once answered (idle ones at once), so stopping waits for no keep-alive timeout. */
  readonly stopKeepingAlive: () => void
}

// Answered once the app's handler is gone (stopping) while a connection still carries a request: never silence.
const unavailable = (res: ServerResponse) => {
  const requestId = serverRequestId(Date.now(), SecureRandom.uuidV4Unsafe())
  const body = JSON.stringify({
    type: problemType("unavailable"),
    title: "Service unavailable",
    status: 503,
    code: "unavailable",
    detail: "the server is stopping",
    requestId
  })
  res.writeHead(503, { "content-type": "application/problem+json", "retry-after": "1", "x-request-id": requestId, connection: "close" }).end(body)
}

/**
 * The server the app listens with. Node accepts connections as soon as it listens, but Effect's server attaches the
 * request handler only once the routes are built, and Node drops a `request` nobody listens to: such a connection
 * waited forever. Here a first listener holds every request until the app's handler arrives and then hands them to it;
 * once the handler is removed (stopping) it answers 503 and closes.
 */
export const gatedServer = (options: ServerOptions): GatedServer => {
  const server = createServer(options)
  let stage: "starting" | "serving" | "stopped" = "starting"
  let closing = false
  let held: Array<readonly [IncomingMessage, ServerResponse]> = []

  server.on("request", (req, res) => {
    if (stage === "starting") return void held.push([req, res])
    if (stage === "stopped") return unavailable(res)
    if (closing) res.setHeader("connection", "close")
  })
  // `newListener` fires just before the handler is added: the held requests go to it on the next tick.
  server.on("newListener", (event, handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    if (event !== "request" || stage !== "starting") return
    stage = "serving"
    const waiting = held
    held = []
    process.nextTick(() => {
      for (const [req, res] of waiting) handler(req, res)
    })
  })
  server.on("removeListener", (event) => {
    if (event === "request" && stage === "serving" && server.listenerCount("request") <= 1) stage = "stopped"
  })

  return {
    server,
    stopKeepingAlive: () => {
      closing = true
      // A connection whose request is in flight turns idle once answered: let it go then, until the server has closed.
      server.closeIdleConnections()
      const sweep = setInterval(() => server.closeIdleConnections(), 100)
      sweep.unref()
      server.once("close", () => clearInterval(sweep))
    }
  }
}
