import { describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { createServer } from "node:http"
import { join } from "node:path"
import { afterAll } from "vitest"
import { startServer, tempWorkDir } from "./server-process.ts"
import { makeWaiters } from "./support/waiters.ts"

const workDir = tempWorkDir("atrium-otlp-")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

/** A loopback OTLP/HTTP collector that records what each signal's path received. */
const fakeCollector = () =>
  new Promise<{ url: string; received: Array<{ path: string; body: string }>; until: (check: () => boolean) => Promise<void>; close: () => void }>((resolve) => {
    const received: Array<{ path: string; body: string }> = []
    const waiters = makeWaiters()
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString()))
      request.on("end", () => {
        received.push({ path: request.url ?? "", body })
        waiters.happened()
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ url: `http://127.0.0.1:${port}`, received, until: waiters.until, close: () => server.close() })
    })
  })

describe("OTLP export", () => {
  it("sends the server's traces to OTEL_EXPORTER_OTLP_ENDPOINT, with no credential in them", async () => {
    const collector = await fakeCollector()
    const server = await startServer({ ATRIUM_DATA_DIR: join(workDir, "data"), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: "atrium-test" })
    try {
      const secret = "sk_live_0000000000000000000000000000000000000000"
      await fetch(`${server.baseUrl}/api/v1/workspaces/current`, { headers: { authorization: `Bearer ${secret}` } })
      await collector.until(() => collector.received.some((r) => r.path === "/v1/traces"))
      const traces = collector.received.filter((r) => r.path === "/v1/traces").map((r) => r.body).join("\n")
      expect(traces).toContain("atrium-test")
      expect(traces).not.toContain(secret)
    } finally {
      await server.stop()
      collector.close()
    }
  }, 90_000)
})
