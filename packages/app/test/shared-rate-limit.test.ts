import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { join } from "node:path"

// CI runs Redis on 127.0.0.1:6379 (and `.ci/run` exports ATRIUM_REDIS_URL when it answers).
const redisUrl = process.env.ATRIUM_REDIS_URL ?? "redis://127.0.0.1:6379"
const fixture = join(import.meta.dirname, "fixtures", "consume-rate-limit.ts")

// One OS process consuming `attempts` against `key`; resolves with how many it was allowed.
const consumer = (key: string, limit: number, attempts: number, redis: boolean) =>
  new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [fixture], {
      env: {
        ...process.env,
        ATRIUM_REDIS_URL: redis ? redisUrl : undefined,
        ATRIUM_REDIS_PREFIX: "atrium-test-http:",
        KEY: key,
        LIMIT: String(limit),
        ATTEMPTS: String(attempts)
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.once("exit", (code) => {
      const match = /\{"allowed":(\d+)\}/.exec(output)
      if (code === 0 && match?.[1] !== undefined) resolve(Number(match[1]))
      else reject(new Error(`consumer exited with ${code}:\n${output}`))
    })
  })

describe("rate limits across processes", () => {
  it("with ATRIUM_REDIS_URL, two processes share one limit: at most L + 1 pass for one key", async () => {
    const limit = 20
    const key = `shared-${randomUUID()}`
    const [a, b] = await Promise.all([consumer(key, limit, limit, true), consumer(key, limit, limit, true)])
    expect(a + b).toBeGreaterThanOrEqual(limit)
    expect(a + b).toBeLessThanOrEqual(limit + 1)
  }, 30_000)

  it("without it, each process counts alone (what the shared store prevents)", async () => {
    const limit = 20
    const key = `alone-${randomUUID()}`
    const [a, b] = await Promise.all([consumer(key, limit, limit, false), consumer(key, limit, limit, false)])
    expect(a + b).toBe(2 * limit)
  }, 30_000)
})
