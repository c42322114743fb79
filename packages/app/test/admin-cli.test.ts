import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { startServer, tempWorkDir } from "./server-process.ts"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..", "..")
// The data directory sits in its own temporary folder, beside the generated secret key.
const workDir = tempWorkDir("atrium-cli-")
const dataDir = join(workDir, "data")
afterAll(() => rmSync(workDir, { recursive: true, force: true }))

const atrium = async (...args: Array<string>) => {
  const { stdout } = await run(process.execPath, ["packages/app/src/cli.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: undefined, ATRIUM_DATA_DIR: dataDir }
  })
  return stdout
}

const postmasterPid = (dir: string) => Number.parseInt(readFileSync(join(dir, "postgres", "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10)

const lastJson = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}")

describe("admin CLI", () => {
  it("creates a workspace and a scoped key that the server accepts, then revokes it", async () => {
    const workspace = lastJson(await atrium("create-workspace", "--name", "Acme Corp", "--slug", "acme"))
    expect(workspace).toMatchObject({ slug: "acme", name: "Acme Corp" })
    await atrium("grant-entitlement", "--workspace", "acme", "--feature", "ai.basic")
    const created = lastJson(await atrium("create-key", "--workspace", "acme", "--name", "deploy", "--scope", "read"))
    expect(created.scopes).toEqual(["read"])
    const key = String(created.key)
    expect(key).toMatch(/^sk_live_/)
    // Rolling gives a second key with the same scopes; the first keeps working for the grace.
    const rolled = lastJson(await atrium("roll-key", "--workspace", "acme", "--key", String(created.id), "--grace-seconds", "3600"))
    expect(rolled).toMatchObject({ replaces: created.id, scopes: ["read"] })
    expect(String(rolled.key)).toMatch(/^sk_live_/)
    expect(Date.parse(String(rolled.previousExpiresAt)) - Date.now()).toBeGreaterThan(3500_000)

    const server = await startServer({ ATRIUM_DATA_DIR: dataDir })
    try {
      const auth = { authorization: `Bearer ${key}` }
      const current = await fetch(`${server.baseUrl}/api/v1/workspaces/current`, { headers: auth })
      expect(await current.json()).toMatchObject({ id: workspace.id, slug: "acme" })
      const successor = await fetch(`${server.baseUrl}/api/v1/workspaces/current`, { headers: { authorization: `Bearer ${String(rolled.key)}` } })
      expect(successor.status).toBe(200)
      const entitlements: { data: Array<{ feature: string }> } = await (await fetch(`${server.baseUrl}/api/v1/entitlements`, { headers: auth })).json()
      expect(entitlements.data.map((e) => e.feature)).toEqual(["ai.basic"])
    } finally {
      await server.stop()
    }

    await atrium("revoke-key", "--workspace", "acme", "--key", String(created.id))
    const again = await startServer({ ATRIUM_DATA_DIR: dataDir })
    try {
      const refused = await fetch(`${again.baseUrl}/api/v1/workspaces/current`, { headers: { authorization: `Bearer ${key}` } })
      expect(refused.status).toBe(401)
      expect(await refused.json()).toMatchObject({ code: "api_key_revoked" })
    } finally {
      await again.stop()
    }
  }, 90_000)

  it("an unknown workspace is an error, not a crash with a stack", async () => {
    await expect(atrium("create-key", "--workspace", "nope-nope")).rejects.toMatchObject({ code: 1 })
  }, 30_000)

  // Each refusal is exit code 1 and one line on stderr saying why: no empty "NotFound:", no stack.
  const refusal = async (...args: Array<string>) => {
    const failed: unknown = await atrium(...args).then(() => undefined, (error: unknown) => error)
    expect(failed).toMatchObject({ code: 1 })
    const stderr = typeof failed === "object" && failed !== null && "stderr" in failed ? String(failed.stderr) : ""
    const lines = stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(stderr).not.toMatch(/^\s+at /m)
    return lines[0] ?? ""
  }

  it("operator mistakes are refused with a one-line reason", async () => {
    expect(await refusal("create-key", "--workspace", "nope-nope")).toBe("atrium: not found: no workspace by that name or id")
    await atrium("create-workspace", "--name", "Refusals", "--slug", "refusals")
    expect(await refusal("grant-entitlement", "--workspace", "refusals", "--feature", "ai.bogus")).toMatch(/^atrium: invalid input: unknown feature "ai.bogus"; the catalog knows ai.basic/)
    for (const days of ["-1", "1000000"]) {
      expect(await refusal("create-key", "--workspace", "refusals", "--expires-in-days", days)).toMatch(/^atrium: invalid input: --expires-in-days/)
    }
    expect(await refusal("create-workspace", "--name", "Bad\u0001Name")).toMatch(/^atrium: invalid input: name/)
    expect(await refusal("roll-key", "--workspace", "refusals", "--key", "key_missing")).toBe("atrium: not found: no api key by that name or id")
  }, 180_000)

  it("beside a running server acts on its live database: the server sees every change at once, and a restart keeps them", async () => {
    const besideDir = join(workDir, "beside")
    const cli = async (...args: Array<string>) => {
      const { stdout } = await run(process.execPath, ["packages/app/src/cli.ts", ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: undefined, ATRIUM_DATA_DIR: besideDir }
      })
      return lastJson(stdout)
    }
    const server = await startServer({ ATRIUM_DATA_DIR: besideDir })
    const serverPostgres = postmasterPid(besideDir)
    let key = ""
    try {
      const workspace = await cli("create-workspace", "--name", "Beside", "--slug", "beside")
      key = String((await cli("create-key", "--workspace", "beside", "--scope", "read")).key)
      // Two runs at once, as an operator's script might: both land, neither is lost.
      await Promise.all([
        cli("add-credits", "--workspace", "beside", "--micros", "1000000"),
        cli("add-credits", "--workspace", "beside", "--micros", "2500000")
      ])
      // The CLI joined the server's PostgreSQL (no second one started) and left it running.
      expect(postmasterPid(besideDir)).toBe(serverPostgres)
      const auth = { authorization: `Bearer ${key}` }
      const current = await fetch(`${server.baseUrl}/api/v1/workspaces/current`, { headers: auth })
      expect(current.status).toBe(200)
      expect(await current.json()).toMatchObject({ id: workspace.id, slug: "beside" })
      const usage = await fetch(`${server.baseUrl}/api/v1/usage`, { headers: auth })
      expect(await usage.json()).toMatchObject({ creditBalanceMicros: 3_500_000 })
    } finally {
      await server.stop()
    }
    // The server was the last user: it stopped PostgreSQL on its way out.
    expect(existsSync(join(besideDir, "postgres", "postmaster.pid"))).toBe(false)
    const again = await startServer({ ATRIUM_DATA_DIR: besideDir })
    try {
      const usage = await fetch(`${again.baseUrl}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } })
      expect(usage.status).toBe(200)
      expect(await usage.json()).toMatchObject({ creditBalanceMicros: 3_500_000 })
    } finally {
      await again.stop()
    }
  }, 120_000)
})
