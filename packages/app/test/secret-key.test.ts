import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { startServer, tempWorkDir } from "./server-process.ts"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..", "..")
const workDir = tempWorkDir("atrium-key-")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const keyPattern = /sk_live_[0-9A-Za-z]{39}/
// Loopback receivers are allowed here so an endpoint can be saved; nothing is delivered to it in this test.
const allowLoopback = { ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.1/32", ATRIUM_WORKERS: "false" }

describe("the secret key of the embedded default", () => {
  it("moves from beside the data directory into keys/secret.key (0600) and keeps opening the secrets sealed with it", async () => {
    const dataDir = join(workDir, "moved", "data")
    mkdirSync(join(workDir, "moved"), { recursive: true })
    const legacy = join(workDir, "moved", "secret.key")
    const oldKey = Buffer.alloc(32, 9).toString("base64")
    writeFileSync(legacy, `${oldKey}\n`, { mode: 0o600 })
    const server = await startServer({ ATRIUM_DATA_DIR: dataDir, ...allowLoopback })
    await server.stop()
    const key = join(dataDir, "keys", "secret.key")
    expect(existsSync(legacy)).toBe(false)
    expect(readFileSync(key, "utf8").trim()).toBe(oldKey)
    expect(statSync(key).mode & 0o777).toBe(0o600)
    expect(statSync(join(dataDir, "keys")).mode & 0o777).toBe(0o700)
  }, 60_000)

  it("refuses to start when it cannot open the stored webhook secrets (replaced or lost), and starts again once restored or rotated", async () => {
    const dataDir = join(workDir, "lost", "data")
    const first = await startServer({ ATRIUM_DATA_DIR: dataDir, ...allowLoopback }, keyPattern)
    const auth = { authorization: `Bearer ${keyPattern.exec(first.output())?.[0] ?? ""}`, "content-type": "application/json" }
    let endpoint = ""
    try {
      const created = await fetch(`${first.baseUrl}/api/v1/webhook-endpoints`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ url: "http://127.0.0.1:9/hook" })
      })
      expect(created.status).toBe(201)
      endpoint = String((await created.json()).id)
    } finally {
      await first.stop()
    }
    const key = join(dataDir, "keys", "secret.key")
    const original = join(workDir, "lost", "original.key")
    renameSync(key, original)

    // Lost: a fresh key is generated, but it cannot open the endpoint's secret.
    await expect(startServer({ ATRIUM_DATA_DIR: dataDir, ...allowLoopback })).rejects.toThrow(
      new RegExp(`cannot open the signing secrets of 1 webhook endpoint\\(s\\): ${endpoint}.*Restore the original key, or rotate`)
    )
    // Replaced by another valid key: the same refusal.
    writeFileSync(key, `${Buffer.alloc(32, 3).toString("base64")}\n`, { mode: 0o600 })
    await expect(startServer({ ATRIUM_DATA_DIR: dataDir, ...allowLoopback })).rejects.toThrow(/Restore the original key/)

    // Restored: the server starts.
    renameSync(original, key)
    const restored = await startServer({ ATRIUM_DATA_DIR: dataDir, ...allowLoopback })
    await restored.stop()

    // Or, with the key gone for good, the endpoint's secret is rotated and the server starts with the new key.
    writeFileSync(key, `${Buffer.alloc(32, 5).toString("base64")}\n`, { mode: 0o600 })
    const { stdout } = await run(process.execPath, ["packages/app/src/cli.ts", "rotate-webhook-secret", "--workspace", "demo", "--endpoint", endpoint], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: undefined, ATRIUM_DATA_DIR: dataDir }
    })
    expect(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ id: endpoint, secret: expect.stringMatching(/^whsec_/) })
    const rotated = await startServer({ ATRIUM_DATA_DIR: dataDir, ...allowLoopback })
    await rotated.stop()
  }, 120_000)
})
