import { afterAll, describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { startServer, tempWorkDir } from "./server-process.ts"
import { statusesOnceRecovered, timed } from "./support/timed-requests.ts"
import { freezingProxy } from "./support/freezing-proxy.ts"

// CI runs Redis on 127.0.0.1:6379; the test reaches it through a proxy it can freeze.
const redisPort = Number(new URL(process.env.ATRIUM_REDIS_URL ?? "redis://127.0.0.1:6379").port || 6379)
const workDir = tempWorkDir("atrium-frozen-redis-")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const keyPattern = /sk_live_[0-9A-Za-z]{39}/

describe("a frozen Redis (rate limits and throttles counted there)", () => {
  it("makes every request it counts answer 503 unavailable within seconds, and the server recovers when Redis answers again", async () => {
    const proxy = await freezingProxy(redisPort)
    const server = await startServer({ ATRIUM_DATA_DIR: join(workDir, "data"), ATRIUM_REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, keyPattern)
    const auth = { headers: { authorization: `Bearer ${keyPattern.exec(server.output())?.[0] ?? ""}` } }
    const signIn = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "nobody@example.com", password: "not the password" }) }
    const paths = ["/api/v1/workspaces/current", "/api/v1/entitlements", "/api/v1/usage"]
    try {
      for (const path of paths) expect((await timed(`${server.baseUrl}${path}`, auth)).status).toBe(200)
      proxy.freeze()
      try {
        const frozen = await Promise.all([
          ...[...paths, ...paths].map((path) => timed(`${server.baseUrl}${path}`, auth)),
          // Sign-in is throttled per address and email in the same store.
          timed(`${server.baseUrl}/api/auth/sign-in`, signIn)
        ])
        for (const answer of frozen) {
          expect(answer.status).toBe(503)
          expect(answer.body).toMatchObject({ code: "unavailable" })
          expect(answer.retryAfter).not.toBeNull()
          expect(answer.millis).toBeLessThan(5_000)
        }
      } finally {
        proxy.thaw()
      }
      const recovered = await statusesOnceRecovered(paths.map((path) => `${server.baseUrl}${path}`), auth)
      expect(recovered).toEqual(paths.map(() => 200))
    } finally {
      await server.stop()
      await proxy.close()
    }
  }, 90_000)
})
