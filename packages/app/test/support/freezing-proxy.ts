// A loopback TCP proxy a test can freeze: while frozen it accepts connections and bytes and delivers none, as a
// stopped server whose kernel still acknowledges them would.
import { createConnection, createServer, type Socket } from "node:net"

/** A running proxy: its port, freeze/thaw, and close. */
export interface FreezingProxy {
  readonly port: number
  readonly freeze: () => void
  readonly thaw: () => void
  readonly close: () => Promise<void>
}

/** Forwards loopback connections to `port` on 127.0.0.1 until frozen; thawing delivers what was held, in order. */
export const freezingProxy = (port: number): Promise<FreezingProxy> =>
  new Promise((resolve) => {
    let frozen = false
    let held: Array<() => void> = []
    const sockets = new Set<Socket>()
    const forward = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => {
        if (frozen) held.push(() => to.write(chunk))
        else to.write(chunk)
      })
    const server = createServer((client) => {
      const upstream = createConnection({ host: "127.0.0.1", port })
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on("error", () => socket.destroy())
        socket.on("close", () => {
          sockets.delete(socket)
          client.destroy()
          upstream.destroy()
        })
      }
      forward(client, upstream)
      forward(upstream, client)
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({
        port: typeof address === "object" && address !== null ? address.port : 0,
        freeze: () => {
          frozen = true
        },
        thaw: () => {
          frozen = false
          const pending = held
          held = []
          for (const deliver of pending) deliver()
        },
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
