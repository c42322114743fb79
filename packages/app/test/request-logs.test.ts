// The /api/v1 request log over HTTP, on Postgres (DATABASE_URL when set, else the embedded database): the server
// process writes each keyed v1 request off the request path in batches; admins read their workspace's lines, filtered.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"
import { ownDatabaseOf, runSql } from "./support/own-database.ts"

const workDir = tempWorkDir("atrium-request-logs-")
const suffix = Math.random().toString(36).slice(2, 10)
const password = "correct horse battery staple"

// A database of its own on DATABASE_URL's server, so the lines counted are this test's only.
const ownDatabase = ownDatabaseOf("request_logs")


// At debug level the server prints each request-log write, which the tests wait for.
const environment = () =>
  ownDatabase !== undefined
    ? { DATABASE_URL: ownDatabase.url, ATRIUM_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"), ATRIUM_RATE_LIMIT_PER_MINUTE: "6000", ATRIUM_LOG_LEVEL: "debug" }
    : { ATRIUM_DATA_DIR: join(workDir, "data"), ATRIUM_RATE_LIMIT_PER_MINUTE: "6000", ATRIUM_LOG_LEVEL: "debug" }

let server: ServerProcess

type Body = Record<string, unknown>
const call = async (method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}) => {
  const all: Record<string, string> = { "content-type": "application/json", ...headers }
  if (token !== undefined) all.authorization = `Bearer ${token}`
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers: all, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await response.text()
  const parsed: Body = text.length === 0 ? {} : JSON.parse(text)
  return { status: response.status, body: parsed }
}
const field = (body: Body, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, key) => (typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined), body)

interface Line {
  readonly id: string
  readonly keyId: string
  readonly method: string
  readonly route: string
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
  readonly createdAt: string
}
const linesOf = (body: Body): ReadonlyArray<Line> => {
  const data = body.data
  return Array.isArray(data) ? data : []
}

const signUp = async (name: string) => {
  const up = await call("POST", "/api/auth/sign-up", undefined, { email: `${name}-${suffix}@example.com`, password, name })
  expect(up.status).toBe(201)
  return { email: `${name}-${suffix}@example.com`, token: String(field(up.body, "session", "accessToken")), workspaceId: String(field(up.body, "workspace", "id")) }
}
const createKey = async (token: string, name: string) => {
  const created = await call("POST", "/api/mobile/api-keys", token, { name, scopes: ["read"] })
  expect(created.status).toBe(201)
  return { id: String(field(created.body, "apiKey", "id")), key: String(created.body.key) }
}
const logs = (token: string, query = "") => call("GET", `/api/mobile/request-logs${query}`, token)

// Lines are written about a second after the answer (the buffer's flush): wait until the server says `count` were.
const linesWritten = (count: number) =>
  server.printed((output) => [...output.matchAll(/request log: (\d+) lines written/g)].reduce((sum, [, n]) => sum + Number(n), 0) >= count)

let ada: Awaited<ReturnType<typeof signUp>>
let bob: Awaited<ReturnType<typeof signUp>>
let max: Awaited<ReturnType<typeof signUp>>
let first: { id: string; key: string }
let second: { id: string; key: string }
let bobs: { id: string; key: string }

beforeAll(async () => {
  if (ownDatabase !== undefined) await runSql(ownDatabase.adminUrl, `CREATE DATABASE "${ownDatabase.name}"`)
  server = await startServer(environment())
  ada = await signUp("ada")
  bob = await signUp("bob")
  max = await signUp("max")
  // Max is a plain member of Ada's workspace.
  const invited = await call("POST", "/api/mobile/invitations", ada.token, { email: max.email, role: "member" })
  expect(invited.status).toBe(201)
  expect((await call("POST", "/api/mobile/invitations/accept", max.token, { token: invited.body.token })).status).toBeLessThan(300)
  expect((await call("PUT", "/api/mobile/organization/active", max.token, { workspaceId: ada.workspaceId })).status).toBe(200)
  first = await createKey(ada.token, "first")
  second = await createKey(ada.token, "second")
  bobs = await createKey(bob.token, "bob's")
}, 120_000)

afterAll(async () => {
  await server?.stop()
  if (ownDatabase !== undefined) await runSql(ownDatabase.adminUrl, `DROP DATABASE IF EXISTS "${ownDatabase.name}" WITH (FORCE)`)
  rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

describe("the request log of /api/v1", () => {
  it("records each keyed request with its route template, status, duration and request id; filters by key, status and request id; another workspace sees none of it", async () => {
    expect((await call("GET", "/api/v1/workspaces/current", first.key, undefined, { "x-request-id": `a-ok-${suffix}` })).status).toBe(200)
    expect((await call("GET", "/api/v1/webhook-endpoints/whe_0000000000000000000000", first.key, undefined, { "x-request-id": `a-missing-${suffix}` })).status).toBe(404)
    expect((await call("POST", "/api/v1/ai-tasks", first.key, { model: "atrium-local-1", input: { prompt: "Hi" } })).status).toBe(403)
    expect((await call("GET", "/api/v1/entitlements", second.key)).status).toBe(200)
    expect((await call("GET", "/api/v1/workspaces/current", bobs.key, undefined, { "x-request-id": `b-ok-${suffix}` })).status).toBe(200)
    // Neither a refused credential nor a session is a key's request.
    expect((await call("GET", "/api/v1/workspaces/current", "sk_live_notakey")).status).toBe(401)
    expect((await call("GET", "/api/mobile/organization", ada.token)).status).toBe(200)

    // Ada's four and Bob's one.
    await linesWritten(5)
    const lines = linesOf((await logs(ada.token)).body)
    expect(lines).toHaveLength(4)
    expect(lines.map((line) => [line.keyId, line.method, line.route, line.status])).toEqual([
      [second.id, "GET", "/api/v1/entitlements", 200],
      [first.id, "POST", "/api/v1/ai-tasks", 403],
      [first.id, "GET", "/api/v1/webhook-endpoints/:id", 404],
      [first.id, "GET", "/api/v1/workspaces/current", 200]
    ])
    for (const line of lines) {
      expect(line.durationMs).toBeGreaterThanOrEqual(0)
      expect(Math.abs(Date.now() - Date.parse(line.createdAt))).toBeLessThan(60_000)
      expect(line.requestId.length).toBeGreaterThan(0)
    }
    expect(JSON.stringify(lines)).not.toContain("whe_0000000000000000000000")

    // Filters.
    expect(linesOf((await logs(ada.token, `?keyId=${second.id}`)).body).map((line) => line.route)).toEqual(["/api/v1/entitlements"])
    expect(linesOf((await logs(ada.token, "?status=404")).body).map((line) => line.requestId)).toEqual([`a-missing-${suffix}`])
    expect(linesOf((await logs(ada.token, `?requestId=a-ok-${suffix}`)).body).map((line) => line.route)).toEqual(["/api/v1/workspaces/current"])
    expect(linesOf((await logs(ada.token, `?keyId=${first.id}&status=200`)).body)).toHaveLength(1)
    // Pages.
    const page = await logs(ada.token, "?limit=3")
    expect(linesOf(page.body)).toHaveLength(3)
    const rest = await logs(ada.token, `?limit=3&cursor=${String(page.body.nextCursor)}`)
    expect(linesOf(rest.body).map((line) => line.id)).toEqual([lines[3]?.id])
    expect(rest.body.nextCursor).toBeNull()

    // Tenant isolation: Bob sees his line only; Ada's key id or request id finds nothing in his workspace, nor his in hers.
    const bobLines = linesOf((await logs(bob.token)).body)
    expect(bobLines.map((line) => [line.keyId, line.requestId])).toEqual([[bobs.id, `b-ok-${suffix}`]])
    expect(linesOf((await logs(bob.token, `?keyId=${first.id}`)).body)).toEqual([])
    expect(linesOf((await logs(bob.token, `?requestId=a-ok-${suffix}`)).body)).toEqual([])
    expect(linesOf((await logs(ada.token, `?requestId=b-ok-${suffix}`)).body)).toEqual([])
  }, 60_000)

  it("is for admins and owners: a member is refused; a bad filter is 400", async () => {
    const refused = await logs(max.token)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe("forbidden")
    expect((await logs(ada.token, "?status=abc")).status).toBe(400)
    expect((await logs(ada.token, "?keyId=not-a-key")).status).toBe(400)
    // A key is never a session: the session API refuses it.
    expect((await logs(first.key)).status).toBe(401)
  }, 30_000)
})

// Pruning over HTTP needs a line older than seven days, written straight into the database: only where the test can
// reach it (DATABASE_URL). The step runs when the server starts and hourly; the repository tests prune on every store.
if (ownDatabase !== undefined) {
  describe("pruning, on DATABASE_URL", () => {
    it("a restarted server prunes lines older than seven days and keeps the rest; an old line is never listed", async () => {
      // Two flushes of Ada's first key, one of eight days ago and one of six, as the server writes them.
      const flush = (requestId: string, age: string) => `
        INSERT INTO request_log_batches (flush, workspace_id, key_id, first_at, last_at, statuses, methods, routes, at, call, status, duration_ms, request_id, place)
        VALUES (nextval('request_log_flushes'), '${ada.workspaceId}', '${first.id}', now() - interval '${age}', now() - interval '${age}', '{200}',
          '{GET}', '{/api/v1/entitlements}', ARRAY[now() - interval '${age}'], '{1}', '{200}', '{1.5}', '{${requestId}}', '{1}')
        RETURNING id`
      await runSql(ownDatabase.url, `WITH b AS (${flush(`old-${suffix}`, "8 days")}) INSERT INTO request_log_foreign_ids SELECT id, 'old-${suffix}' FROM b`)
      await runSql(ownDatabase.url, `WITH b AS (${flush(`recent-${suffix}`, "6 days")}) INSERT INTO request_log_foreign_ids SELECT id, 'recent-${suffix}' FROM b`)
      // Past the seven days, a line is not listed even before it is pruned.
      expect(linesOf((await logs(ada.token, `?requestId=old-${suffix}`)).body)).toEqual([])
      expect(linesOf((await logs(ada.token, `?requestId=recent-${suffix}`)).body)).toHaveLength(1)
      await server.stop()
      server = await startServer(environment(), /request log: pruned 1 lines/)
      const signedIn = await call("POST", "/api/auth/sign-in", undefined, { email: ada.email, password })
      const token = String(field(signedIn.body, "session", "accessToken"))
      expect(linesOf((await logs(token, `?requestId=old-${suffix}`)).body)).toEqual([])
      expect(linesOf((await logs(token, `?requestId=recent-${suffix}`)).body)).toHaveLength(1)
    }, 60_000)
  })
}
