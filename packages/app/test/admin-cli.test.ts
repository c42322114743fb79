import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { promisify } from "node:util"
import { startServer, tempWorkDir } from "./server-process.ts"
import { makeWaiters } from "./support/waiters.ts"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..", "..")
// The data directory sits in its own temporary folder, beside the generated secret key.
const workDir = tempWorkDir("atrium-cli-")
const dataDir = join(workDir, "data")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

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
    expect(await refusal("grant-entitlement", "--workspace", "refusals", "--feature", "ai.bogus")).toBe(
      'atrium: invalid input: unknown feature "ai.bogus"; the catalog knows ai.basic, ai.standard, ai.advanced, domains.custom'
    )
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

  it("an operator grants domains.custom and the workspace can then add a custom domain; an unknown feature is refused, by the CLI and in store products", async () => {
    const domainsDir = join(workDir, "domains")
    const cli = async (...args: Array<string>) => {
      const { stdout } = await run(process.execPath, ["packages/app/src/cli.ts", ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: undefined, ATRIUM_DATA_DIR: domainsDir }
      })
      return lastJson(stdout)
    }
    // DNS asked of a closed loopback port: the check fails fast and never leaves the machine.
    const server = await startServer({ ATRIUM_DATA_DIR: domainsDir, ATRIUM_DNS_SERVERS: "127.0.0.1:9" })
    try {
      const http = httpOf(server.baseUrl)
      const ada = await http.signUp("ada@example.com", "Ada")
      const add = () => http.call("POST", "/api/mobile/domains", ada.token, { hostname: "app.example.com" })
      const before = await add()
      expect(before.status).toBe(403)
      expect(before.body).toMatchObject({ code: "not_entitled", feature: "domains.custom" })
      const failed: unknown = await cli("grant-entitlement", "--workspace", ada.workspaceId, "--feature", "domains.customs").then(() => undefined, (error: unknown) => error)
      expect(failed).toMatchObject({ code: 1 })
      expect(await cli("grant-entitlement", "--workspace", ada.workspaceId, "--feature", "domains.custom")).toMatchObject({
        workspaceId: ada.workspaceId,
        feature: "domains.custom",
        source: "manual"
      })
      const after = await add()
      expect(after.status, JSON.stringify(after.body)).toBe(201)
      expect(after.body).toMatchObject({ hostname: "app.example.com", status: "pending_verification" })
    } finally {
      await server.stop()
    }
    // Store products are held to the same catalog: a product granting a feature no area knows stops the start.
    const withProducts = (features: ReadonlyArray<string>) =>
      run(process.execPath, ["packages/app/src/cli.ts", "migrate"], {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: undefined,
          ATRIUM_DATA_DIR: domainsDir,
          ATRIUM_STORE_PRODUCTS: JSON.stringify([{ store: "app_store", productId: "pro.yearly", kind: "subscription", features }])
        }
      })
    expect((await withProducts(["domains.custom", "ai.advanced"])).stdout).toContain("database migrated")
    const refused: unknown = await withProducts(["domains.custom", "ai.bogus"]).then(() => undefined, (error: unknown) => error)
    expect(refused).toMatchObject({ code: 1 })
    expect(typeof refused === "object" && refused !== null && "stderr" in refused ? String(refused.stderr) : "").toContain(
      'atrium: invalid input: ATRIUM_STORE_PRODUCTS: app_store product "pro.yearly": unknown feature "ai.bogus"'
    )
  }, 120_000)

  it("an operator's status change and merge, run without push configured, reach the voters through the server's push worker, and the workspace's webhook", async () => {
    const pushDir = join(workDir, "push")
    const expo = await expoFake()
    const hooks = await receiver()
    const cli = async (...args: Array<string>) => {
      // As the README runs it: no push token, no push URL in the operator's environment.
      const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: undefined, ATRIUM_DATA_DIR: pushDir }
      delete env.ATRIUM_EXPO_ACCESS_TOKEN
      delete env.ATRIUM_EXPO_PUSH_URL
      const { stdout } = await run(process.execPath, ["packages/app/src/cli.ts", ...args], { cwd: root, env })
      return lastJson(stdout)
    }
    const server = await startServer({
      ATRIUM_DATA_DIR: pushDir,
      ATRIUM_EXPO_ACCESS_TOKEN: "expo-test-access-token",
      ATRIUM_EXPO_PUSH_URL: expo.url,
      ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.0/8"
    })
    try {
      const http = httpOf(server.baseUrl)
      const ada = await http.signUp("ada@example.com", "Ada")
      const bob = await http.signUp("bob@example.com", "Bob")
      const device = (n: number) => ({ expoPushToken: `ExponentPushToken[cli${n}aaaaaaaaaaaaaaaaaaa]`, platform: "ios", appVersion: "1.0.0", locale: "en" })
      expect((await http.call("PUT", "/api/mobile/push-devices/ada-phone", ada.token, device(1))).status).toBe(200)
      expect((await http.call("PUT", "/api/mobile/push-devices/bob-phone", bob.token, device(2))).status).toBe(200)
      const hook = await http.call("POST", "/api/mobile/webhooks", ada.token, { url: `${hooks.url}/hook`, eventTypes: ["feature_request.status_changed"] })
      expect(hook.status, JSON.stringify(hook.body)).toBe(201)
      const request = async (title: string) => {
        const created = await http.call("POST", "/api/mobile/feature-requests", ada.token, { title })
        expect(created.status, JSON.stringify(created.body)).toBe(201)
        const featureRequest = created.body.featureRequest
        const id = typeof featureRequest === "object" && featureRequest !== null && "id" in featureRequest ? String(featureRequest.id) : ""
        expect((await http.call("PUT", `/api/mobile/feature-requests/${id}/vote`, bob.token)).status).toBe(200)
        return id
      }
      const planned = await request("Export usage as CSV")
      const duplicate = await request("Dark mode for the dashboard")

      expect(await cli("set-feature-request-status", "--id", planned, "--status", "planned")).toMatchObject({ id: planned, status: "planned" })
      expect(await cli("merge-feature-request", "--id", duplicate, "--into", planned)).toMatchObject({ id: duplicate, status: "merged" })

      // The server, which has the push token, sends what the CLI's transactions queued: author and voter, both changes.
      const pushedFor = (id: string) => expo.messages().filter((message) => message.data?.featureRequestId === id).map((message) => message.to).sort()
      await expo.until(() => pushedFor(planned).length === 2 && pushedFor(duplicate).length === 2)
      expect(pushedFor(planned)).toEqual([device(1).expoPushToken, device(2).expoPushToken])
      expect(pushedFor(duplicate)).toEqual([device(1).expoPushToken, device(2).expoPushToken])
      expect(expo.authorizations()).toEqual(new Set(["Bearer expo-test-access-token"]))
      // Webhooks were durable already: the same changes reach the workspace's endpoint through the server's worker.
      await hooks.until(() => hooks.bodies().filter((body) => body.includes("feature_request.status_changed")).length === 2)
    } finally {
      await server.stop()
      await expo.close()
      await hooks.close()
    }
  }, 180_000)
})

interface Answer {
  readonly status: number
  readonly body: Record<string, unknown>
}

/** A JSON client of the server under test, and a sign-up that answers the new account's token and personal workspace. */
const httpOf = (baseUrl: string) => {
  const call = async (method: string, path: string, token?: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    const parsed: unknown = text === "" ? {} : JSON.parse(text)
    return { status: response.status, body: typeof parsed === "object" && parsed !== null ? { ...parsed } : {} }
  }
  const signUp = async (email: string, name: string) => {
    const created = await call("POST", "/api/auth/sign-up", undefined, { email, password: "correct horse battery", name })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const field = (value: unknown, key: string): unknown => typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined
    return { token: String(field(created.body.session, "accessToken")), workspaceId: String(field(created.body.workspace, "id")) }
  }
  return { call, signUp }
}

/** Listens on loopback with `handle`; answers the base URL and a close. */
const listen = async (handle: (path: string, body: string, authorization: string | undefined) => { readonly status: number; readonly body: unknown }) => {
  // `until` checks again after each request it handled.
  const waiters = makeWaiters()
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const answer = handle(request.url ?? "", Buffer.concat(chunks).toString("utf8"), request.headers.authorization)
      waiters.happened()
      response.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address: AddressInfo | string | null = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { url: `http://127.0.0.1:${port}`, until: waiters.until, close }
}

interface ExpoMessage {
  readonly to?: string
  readonly data?: Record<string, string>
}

/** A loopback stand-in for Expo's push API in its published format: an `ok` ticket per message, `ok` receipts. */
const expoFake = async () => {
  const messages: Array<ExpoMessage> = []
  const authorizations = new Set<string>()
  const server = await listen((path, body, authorization) => {
    if (authorization !== undefined) authorizations.add(authorization)
    const parsed: unknown = JSON.parse(body)
    if (path.endsWith("/getReceipts")) {
      const ids: unknown = typeof parsed === "object" && parsed !== null && "ids" in parsed ? parsed.ids : []
      return { status: 200, body: { data: Object.fromEntries((Array.isArray(ids) ? ids : []).map((id) => [String(id), { status: "ok" }])) } }
    }
    const batch: Array<ExpoMessage> = Array.isArray(parsed) ? parsed : []
    messages.push(...batch)
    return { status: 200, body: { data: batch.map((_, n) => ({ status: "ok", id: `ticket-${messages.length}-${n}` })) } }
  })
  return { ...server, messages: () => messages, authorizations: () => authorizations }
}

/** A loopback webhook receiver that records every body and answers 200. */
const receiver = async () => {
  const bodies: Array<string> = []
  const server = await listen((_path, body) => {
    bodies.push(body)
    return { status: 200, body: {} }
  })
  return { ...server, bodies: () => bodies }
}
