import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { Effect } from "effect"

/** A request as the loopback receiver saw it. */
export interface ReceivedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** The client's port: equal for attempts that shared a connection. */
  readonly remotePort: number
}

/** A real `node:http` server on 127.0.0.1 with an ephemeral port, closed with the test's scope. */
export interface Receiver {
  readonly port: number
  readonly url: (path?: string) => string
  readonly requests: ReadonlyArray<ReceivedRequest>
  /** Resolves when the first request's head arrived (before its body was read). */
  readonly requestArrived: Promise<void>
  /** Resolves when the socket of the first request closed. */
  readonly firstSocketClosed: Promise<void>
  /** Resolves once `count` requests were received. */
  readonly received: (count: number) => Promise<void>
}

/** Answers a request; the body was read unless the handler asked for the head only. */
export type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void

/** Starts a loopback receiver; with `headOnly` the handler runs as soon as the head arrives. */
export const receiver = (handler: Handler, options: { readonly headOnly?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly receiver: Receiver; readonly close: () => void }>((resume) => {
      const requests: Array<ReceivedRequest> = []
      // Each waiter of `received`, with the count it waits for.
      let waiting: Array<{ readonly count: number; readonly resolve: () => void }> = []
      const receive = (request: ReceivedRequest) => {
        requests.push(request)
        for (const waiter of waiting) if (requests.length >= waiter.count) waiter.resolve()
        waiting = waiting.filter((waiter) => requests.length < waiter.count)
      }
      const received = (count: number) =>
        requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve }))
      let signalArrived = () => {}
      let signalClosed = () => {}
      const requestArrived = new Promise<void>((resolve) => {
        signalArrived = resolve
      })
      const firstSocketClosed = new Promise<void>((resolve) => {
        signalClosed = resolve
      })
      const server = createServer((request, response) => {
        if (requests.length === 0) request.socket.once("close", () => signalClosed())
        signalArrived()
        if (options.headOnly === true) {
          receive({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body: "", remotePort: request.socket.remotePort ?? 0 })
          handler(request, response, "")
          return
        }
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          receive({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body, remotePort: request.socket.remotePort ?? 0 })
          handler(request, response, body)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({
          receiver: { port, url: (path = "/hook") => `http://127.0.0.1:${port}${path}`, requests, requestArrived, firstSocketClosed, received },
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        }))
      })
    }),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ receiver }) => receiver))

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export const closedPort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})
