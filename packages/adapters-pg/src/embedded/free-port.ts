import { Effect } from "effect"
import { createServer } from "node:net"
import { failedTo } from "./embedded-postgres-error.ts"

/** A loopback port that was free a moment ago (the server retries on another if it was taken since). */
export const freePort = Effect.tryPromise({
  try: () =>
    new Promise<number>((resolve, reject) => {
      const server = createServer()
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        server.close(() => port > 0 ? resolve(port) : reject(new Error("no port assigned")))
      })
    }),
  catch: failedTo("cannot find a free loopback port")
})
