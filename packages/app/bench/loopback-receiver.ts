// A webhook receiver on loopback that answers 204 and records when each event arrived, for the delivery benchmark.
import { createServer, type Server } from "node:http"

/** A running receiver: its URL, how many deliveries arrived, and each event's arrival latency. */
export interface Receiver {
  readonly url: string
  readonly received: () => number
  readonly latencies: () => ReadonlyArray<number>
  readonly close: () => Promise<void>
}

/** Starts the receiver on 127.0.0.1 with an ephemeral port. */
export const startReceiver = (): Promise<Receiver> =>
  new Promise((resolve) => {
    let received = 0
    const latencies: Array<number> = []
    const server: Server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received++
        const body: { createdAt?: string } = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        if (typeof body.createdAt === "string") latencies.push(Date.now() - Date.parse(body.createdAt))
        response.writeHead(204).end()
      })
    })
    // A receiver as deployed: idle connections stay open a few seconds (Node's default), so senders may reuse them.
    server.keepAliveTimeout = 5_000
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        received: () => received,
        latencies: () => latencies,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
