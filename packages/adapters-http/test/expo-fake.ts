import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** One request as the fake push service saw it. */
export interface ExpoRequest {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: unknown
}

/** How the fake answers one request; it may look at what was asked. */
export type ExpoResponder = (request: ExpoRequest, response: ServerResponse) => void

/** Answers with a status, JSON body and headers. */
export const answer = (status: number, body: unknown, headers: Record<string, string> = {}): ExpoResponder => (_request, response) => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

/** Every message of a send gets an `ok` ticket `t-<n>`; receipts answer `ok` for every id. */
export const happy: ExpoResponder = (request, response) => {
  if (request.path.endsWith("/getReceipts")) {
    const ids = typeof request.body === "object" && request.body !== null && "ids" in request.body && Array.isArray(request.body.ids) ? request.body.ids : []
    return answer(200, { data: Object.fromEntries(ids.map((id: unknown) => [String(id), { status: "ok" }])) })(request, response)
  }
  const count = Array.isArray(request.body) ? request.body.length : 0
  return answer(200, { data: Array.from({ length: count }, (_, n) => ({ status: "ok", id: `t-${n}` })) })(request, response)
}

/**
 * A loopback stand-in for Expo's push API: answers in order from `script` (then `fallback`), records every request.
 * Closed, connections too, with the test's scope.
 */
export const fakeExpo = (script: ReadonlyArray<ExpoResponder>, fallback: ExpoResponder = happy) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly server: ReturnType<typeof createServer>; readonly received: Array<ExpoRequest> }>((resolve) => {
        const received: Array<ExpoRequest> = []
        const queue = [...script]
        const server = createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8")
            let body: unknown = null
            try {
              body = JSON.parse(text)
            } catch {
              body = text
            }
            const seen: ExpoRequest = { path: request.url ?? "", headers: request.headers, body }
            received.push(seen)
            ;(queue.shift() ?? fallback)(seen, response)
          })
        })
        server.listen(0, "127.0.0.1", () => resolve({ server, received }))
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map(({ server, received }) => {
    const address: AddressInfo | string | null = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    return { baseUrl: `http://127.0.0.1:${port}`, received }
  }))
