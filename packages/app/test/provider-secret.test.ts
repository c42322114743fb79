import { EmbeddedPostgres } from "@atrium/adapters-pg"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { join } from "node:path"
import { promisify } from "node:util"
import { startServer, tempWorkDir } from "./server-process.ts"
import { untilRows } from "./support/embedded-rows.ts"
import { makeWaiters } from "./support/waiters.ts"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..", "..")
// The data directory sits in its own temporary folder, beside the generated secret key.
const workDir = tempWorkDir("atrium-provider-")
const dataDir = join(workDir, "data")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

// The provider credential under test; it must reach the fake provider's Authorization header and nothing else.
const providerSecret = "sk-provider-SECRET-7f3a9c2e1b8d4f60a5e3"

/** A fake OpenAI-compatible server on loopback: answers a completion, or 401 when the prompt asks for it. */
const fakeProvider = () =>
  new Promise<{ url: string; seen: Array<IncomingHttpHeaders>; close: () => void }>((resolve) => {
    const seen: Array<IncomingHttpHeaders> = []
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString()))
      request.on("end", () => {
        seen.push(request.headers)
        if (body.includes("fail-auth")) {
          // Real providers echo the key in errors sometimes; it must still not come back out.
          response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: `bad key ${providerSecret}` }))
          return
        }
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
          choices: [{ message: { role: "assistant", content: "Hello from the fake provider" } }],
          usage: { prompt_tokens: 12, completion_tokens: 6 }
        }))
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ url: `http://127.0.0.1:${port}/v1`, seen, close: () => server.close() })
    })
  })

// The push credential under test: it must reach the fake push service's Authorization header and nothing else.
const pushSecret = "expo-push-SECRET-4c1d8e2f9a7b3c6d5e0f"

// Ada's device tokens: the push service must get them, and nothing else (no row, log line or event) may hold them.
const adaPhone = "ExponentPushToken[adaphoneaaaaaaaaaaaaaa]"
const adaTablet = "ExponentPushToken[adatabletgonebbbbbbbbb]"

/**
 * A fake of Expo's push API on loopback: a ticket for every message, except a token containing "gone", refused the way
 * Expo refuses it (naming the token); receipts for every id.
 */
const fakePush = () =>
  new Promise<{
    url: string
    seen: Array<{ readonly authorization: string | undefined; readonly body: string }>
    until: (check: () => boolean) => Promise<void>
    close: () => void
  }>((resolve) => {
    const seen: Array<{ readonly authorization: string | undefined; readonly body: string }> = []
    const waiters = makeWaiters()
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString()))
      request.on("end", () => {
        seen.push({ authorization: request.headers.authorization, body })
        waiters.happened()
        const messages: unknown = JSON.parse(body)
        const data = Array.isArray(messages)
          ? messages.map((m: { readonly to?: string }, n) =>
            String(m.to).includes("gone")
              ? { status: "error", message: `"${m.to}" is not a registered push notification recipient`, details: { error: "DeviceNotRegistered", expoPushToken: m.to } }
              : { status: "ok", id: `ticket-${n}` }
          )
          : {}
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data }))
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ url: `http://127.0.0.1:${port}`, seen, until: waiters.until, close: () => server.close() })
    })
  })

const atrium = (...args: Array<string>) =>
  run(process.execPath, ["packages/app/src/cli.ts", ...args], { cwd: root, env: { ...process.env, DATABASE_URL: undefined, ATRIUM_DATA_DIR: dataDir } })

const keyPattern = /sk_live_[0-9A-Za-z]{39}/

describe("the provider and push credentials, and device push tokens, never leave the server", () => {
  it("are absent from responses, events, errors, logs and every database row", async () => {
    const provider = await fakeProvider()
    const push = await fakePush()
    const env = {
      ATRIUM_DATA_DIR: dataDir,
      ATRIUM_OPENAI_BASE_URL: provider.url,
      ATRIUM_OPENAI_API_KEY: providerSecret,
      ATRIUM_EXPO_PUSH_URL: push.url,
      ATRIUM_EXPO_ACCESS_TOKEN: pushSecret
    }
    const first = await startServer(env, keyPattern)
    const key = keyPattern.exec(first.output())?.[0] ?? ""
    await first.stop()
    await atrium("grant-entitlement", "--workspace", "demo", "--feature", "ai.standard")

    const server = await startServer(env)
    const bodies: Array<string> = []
    const call = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${server.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } })
      const text = await response.text()
      bodies.push(text, JSON.stringify([...response.headers]))
      return { status: response.status, json: (): { id?: string; status?: string } => JSON.parse(text) }
    }
    try {
      const ok = await call("/api/v1/ai-tasks", { method: "POST", body: JSON.stringify({ model: "gpt-4o-mini", input: { prompt: "Hi" }, maxOutputTokens: 50 }) })
      const failing = await call("/api/v1/ai-tasks", { method: "POST", body: JSON.stringify({ model: "gpt-4o-mini", input: { prompt: "fail-auth" }, maxOutputTokens: 50 }) })
      expect([ok.status, failing.status]).toEqual([202, 202])
      // Both settle in the background (the provider answered, or refused the key): read once the database has them settled.
      const ids = [ok.json().id, failing.json().id].map(String)
      await untilRows(dataDir, (sql) =>
        sql<{ readonly settled: number }>`SELECT count(*)::int AS settled FROM ai_tasks WHERE id = ANY(${ids}) AND status IN ('succeeded', 'failed')`, ([row]) =>
        row?.settled === 2)
      expect((await call(`/api/v1/ai-tasks/${ids[0]}`)).json().status).toBe("succeeded")
      expect((await call(`/api/v1/ai-tasks/${ids[1]}`)).json().status).toBe("failed")
      await call("/api/v1/events")
      await call("/api/v1/usage")

      // Push: Ada registers her phone; Bob invites her to his workspace, which pushes to her phone.
      const session = async (path: string, token: string, method: string, body?: unknown) => {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        const text = await response.text()
        bodies.push(text, JSON.stringify([...response.headers]))
        return { status: response.status, json: (): { session?: { accessToken?: string }; pushEnabled?: boolean } => JSON.parse(text) }
      }
      const signUp = async (email: string) =>
        (await session("/api/auth/sign-up", "", "POST", { email, password: "correct horse battery", name: email.split("@")[0] })).json().session?.accessToken ?? ""
      const ada = await signUp("ada@example.com")
      const bob = await signUp("bob@example.com")
      const register = (installation: string, expoPushToken: string) =>
        session(`/api/mobile/push-devices/${installation}`, ada, "PUT", { expoPushToken, platform: "ios", appVersion: "1.0.0", locale: "en" })
      expect((await register("ada-phone", adaPhone)).status).toBe(200)
      expect((await register("ada-tablet", adaTablet)).status).toBe(200)
      expect((await session("/api/mobile/notification-preferences", ada, "GET")).json().pushEnabled).toBe(true)
      expect((await session("/api/mobile/invitations", bob, "POST", { email: "ada@example.com", role: "member" })).status).toBe(201)
      await push.until(() => push.seen.length > 0)
    } finally {
      await server.stop()
      provider.close()
      push.close()
    }
    // The push token reached the push service, in its Authorization header only, with Ada's devices as the addresses.
    expect(push.seen.map((request) => request.authorization)).toContain(`Bearer ${pushSecret}`)
    expect(push.seen.map((request) => request.body).join("\n")).toContain(adaPhone)
    expect(push.seen.map((request) => request.body).join("\n")).toContain(adaTablet)
    // Her device tokens are in no log line, even where Expo's refusal named one.
    for (const token of [adaPhone, adaTablet]) expect(first.output() + server.output()).not.toContain(token.slice(18, -1))
    expect(bodies.join("\n")).not.toContain(pushSecret)
    expect(first.output() + server.output()).not.toContain(pushSecret)
    // The key did reach the provider, in its Authorization header only.
    expect(provider.seen.map((headers) => headers.authorization)).toContain(`Bearer ${providerSecret}`)

    expect(bodies.join("\n")).toContain("Hello from the fake provider")
    expect(bodies.join("\n")).not.toContain(providerSecret)
    expect(first.output() + server.output()).not.toContain(providerSecret)

    // Every row of every table, read through the embedded server of the data directory (started again for this).
    const { events, tables } = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const names = yield* sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public'`
      const tables = yield* Effect.forEach(names, ({ table_name }) =>
        sql`select * from ${sql(table_name)}`.pipe(Effect.map((rows) => ({ table_name, rows }))))
      const events = yield* sql<{ type: string }>`select type from events`
      return { events, tables }
    }).pipe(Effect.provide(EmbeddedPostgres({ dataDir }))))
    expect(tables.length).toBeGreaterThan(10)
    for (const { rows, table_name } of tables) {
      const text = JSON.stringify(rows, (_k, v: unknown) => typeof v === "bigint" ? String(v) : v)
      expect(text, table_name).not.toContain(providerSecret)
      expect(text, table_name).not.toContain(pushSecret)
      // Device tokens too: sealed in their columns, and absent from events, audit entries and errors.
      for (const token of [adaPhone, adaTablet]) expect(text, table_name).not.toContain(token.slice(18, -1))
    }
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["ai_task.succeeded", "ai_task.failed"]))
  }, 120_000)
})
