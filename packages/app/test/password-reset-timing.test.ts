import { afterAll, describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import * as http from "node:http"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { startServer, tempWorkDir } from "./server-process.ts"

// The embedded server runs as the `postgres` OS account under root: its folder must let that account through.
const workDir = tempWorkDir("atrium-reset-timing-")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const tries = 30

// One POST on a fresh connection from `localAddress` (a loopback address of its own, so per-address limits never
// answer instead of the handler); answers the status and the milliseconds until the whole answer arrived.
const post = (baseUrl: string, path: string, body: unknown, localAddress: string) =>
  new Promise<{ status: number; millis: number }>((resolve, reject) => {
    const text = JSON.stringify(body)
    const started = performance.now()
    const request = http.request(`${baseUrl}${path}`, {
      method: "POST",
      localAddress,
      agent: false,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) }
    }, (response) => {
      response.resume()
      response.on("end", () => resolve({ status: response.statusCode ?? 0, millis: performance.now() - started }))
    })
    request.on("error", reject)
    request.end(text)
  })

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

describe("password reset timing", () => {
  it("answers a known and an unknown address in the same time: interleaved pairs within 1.6x at the median, medians within 1.8x", async () => {
    // Workers off: what is measured is the request path alone, not the mail that follows a known address.
    const server = await startServer({ ATRIUM_DATA_DIR: join(workDir, "data"), ATRIUM_WORKERS: "false", ATRIUM_PUBLIC_URL: "http://atrium.test" })
    try {
      const known = Array.from({ length: tries + 5 }, (_, i) => `known-${i}@example.com`)
      for (const [i, email] of known.entries()) {
        const signedUp = await post(server.baseUrl, "/api/auth/sign-up", { email, password: "correct horse battery", name: `K${i}` }, `127.0.1.${i + 1}`)
        expect(signedUp.status).toBe(201)
      }
      const reset = (email: string, address: string) => post(server.baseUrl, "/api/auth/password-reset", { email }, address)
      // Warm-up: the first requests of each kind pay for compiling and connecting.
      for (let i = 0; i < 5; i++) {
        await reset(known[tries + i] ?? "", `127.0.4.${i + 1}`)
        await reset(`warm-${i}@example.com`, `127.0.5.${i + 1}`)
      }
      const knownMillis: Array<number> = []
      const unknownMillis: Array<number> = []
      // Interleaved, alternating which goes first, so a busy moment of a shared machine hits both alike.
      for (let i = 0; i < tries; i++) {
        const askKnown = async () => {
          const answer = await reset(known[i] ?? "", `127.0.2.${i + 1}`)
          expect(answer.status).toBe(202)
          knownMillis.push(answer.millis)
        }
        const askUnknown = async () => {
          const answer = await reset(`nobody-${i}@example.com`, `127.0.3.${i + 1}`)
          expect(answer.status).toBe(202)
          unknownMillis.push(answer.millis)
        }
        if (i % 2 === 0) {
          await askKnown()
          await askUnknown()
        } else {
          await askUnknown()
          await askKnown()
        }
      }
      const [k, u] = [median(knownMillis), median(unknownMillis)]
      // Each pair ran back to back, so its ratio cancels the load of that moment; the median of the pairs' ratios
      // then cancels the odd slow one. Before the fix: medians of 8.3 ms against 3.3 ms, pairs about 3.8x apart.
      const paired = median(knownMillis.map((millis, i) => millis / (unknownMillis[i] ?? millis)))
      const spread = `medians: known ${k.toFixed(2)} ms, unknown ${u.toFixed(2)} ms; median pair ratio ${paired.toFixed(2)}`
      // Generous for a loaded 2-core machine, still far from what an account's existence used to cost.
      expect(paired, spread).toBeLessThan(1.6)
      expect(paired, spread).toBeGreaterThan(1 / 1.6)
      expect(Math.max(k, u) / Math.min(k, u), spread).toBeLessThan(1.8)
    } finally {
      await server.stop()
    }
  }, 180_000)
})
