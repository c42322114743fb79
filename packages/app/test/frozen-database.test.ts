import { afterAll, describe, expect, it } from "@effect/vitest"
import { embeddedServerProcesses } from "@atrium/adapters-pg/testing"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { startServer, tempWorkDir } from "./server-process.ts"
import { statusesOnceRecovered, timed } from "./support/timed-requests.ts"

const workDir = tempWorkDir("atrium-frozen-")
const dataDir = join(workDir, "data")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const keyPattern = /sk_live_[0-9A-Za-z]{39}/

// The postmaster and every backend and writer: the whole database freezes, not only new connections.
const signalPostgres = (signal: NodeJS.Signals) => {
  for (const pid of embeddedServerProcesses(dataDir)) process.kill(pid, signal)
}

describe("a frozen database (SIGSTOP)", () => {
  it("makes every request answer 503 unavailable within ATRIUM_DATABASE_TIMEOUT and /readyz 503 within a second, and the server recovers by itself on SIGCONT", async () => {
    // One second instead of the default five: the answers below come sooner than the default would allow.
    const server = await startServer({ ATRIUM_DATA_DIR: dataDir, ATRIUM_DATABASE_TIMEOUT: "1 second" }, keyPattern)
    const auth = { headers: { authorization: `Bearer ${keyPattern.exec(server.output())?.[0] ?? ""}` } }
    const paths = ["/api/v1/usage", "/api/v1/events", "/api/v1/entitlements", "/api/v1/webhook-endpoints"]
    try {
      for (const path of paths) expect((await timed(`${server.baseUrl}${path}`, auth)).status).toBe(200)
      signalPostgres("SIGSTOP")
      try {
        // Past the one-second caches of verified keys and workspaces (filled before the freeze, in the server's own
        // clock), so the key's and workspace's lookups freeze too, not only each path's data: 100 ms of margin.
        await new Promise((resolve) => setTimeout(resolve, 1_100))
        // Concurrent requests on pooled connections (stuck statements) and on new ones (a connect that never completes).
        const frozen = await Promise.all([...paths, ...paths, ...paths].map((path) => timed(`${server.baseUrl}${path}`, auth)))
        for (const answer of frozen) {
          expect(answer.status).toBe(503)
          expect(answer.body).toMatchObject({ code: "unavailable" })
          expect(answer.retryAfter).not.toBeNull()
          expect(answer.millis).toBeLessThan(4_000)
        }
        // Not ready (a balancer takes the process out) within about a second; still alive (nothing restarts it).
        const readiness = await timed(`${server.baseUrl}/readyz`)
        expect(readiness.status).toBe(503)
        expect(readiness.body).toMatchObject({ code: "unavailable", reasons: [expect.stringMatching(/^database: /)] })
        expect(readiness.millis).toBeLessThan(2_500)
        expect((await timed(`${server.baseUrl}/healthz`)).status).toBe(200)
      } finally {
        signalPostgres("SIGCONT")
      }
      // Nothing restarts anything: the pool replaces what the freeze broke and requests succeed again.
      const recovered = await statusesOnceRecovered([...paths, "/readyz"].map((path) => `${server.baseUrl}${path}`), auth)
      expect(recovered).toEqual([...paths, "/readyz"].map(() => 200))
    } finally {
      await server.stop()
    }
  }, 90_000)
})
