import { EmbeddedPostgres } from "@atrium/adapters-pg"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { startServer, tempWorkDir } from "./server-process.ts"
import { startSmtpServer } from "../../adapters-smtp/test/support/smtp-server.ts"

// The embedded server runs as the `postgres` OS account under root: its folder must let that account through.
const workDir = tempWorkDir("atrium-mail-")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

// The mail credential under test: it may reach the SMTP server's AUTH and nothing else.
const mailPassword = "smtp-SECRET-0d9e8c7b6a5f"

const json = async (baseUrl: string, path: string, body?: unknown, token?: string) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined && token !== undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, text, headers: JSON.stringify([...response.headers]), body: text.length > 0 ? JSON.parse(text) : {} }
}

describe("mail from the running server", () => {
  it("the embedded default writes the message with its link to the log, and the link verifies the address", async () => {
    const dataDir = join(workDir, "log-data")
    const server = await startServer({ ATRIUM_DATA_DIR: dataDir, ATRIUM_PUBLIC_URL: "http://atrium.test" })
    try {
      const signedUp = await json(server.baseUrl, "/api/auth/sign-up", { email: "ada@example.com", password: "correct horse battery", name: "Ada" })
      expect(signedUp.status).toBe(201)
      const pattern = /http:\/\/atrium\.test\/verify-email#token=(ev_[0-9A-Za-z]+)/
      await server.printed(pattern)
      expect(server.output()).toContain("mail (not sent: log adapter) to ada@example.com: Confirm your email address")
      const token = pattern.exec(server.output())?.[1]
      expect((await json(server.baseUrl, "/api/auth/verify-email", { token })).status).toBe(204)
      const session = await json(server.baseUrl, "/api/auth/session", undefined, signedUp.body.session.accessToken)
      expect(session.body.user.emailVerified).toBe(true)
    } finally {
      await server.stop()
    }
  }, 120_000)

  it("over SMTP the credential is in no response, log line, event, error or row", async () => {
    const smtp = await startSmtpServer({ auth: { user: "atrium", password: mailPassword } })
    const dataDir = join(workDir, "smtp-data")
    const server = await startServer({
      ATRIUM_DATA_DIR: dataDir,
      ATRIUM_MAIL_URL: `smtp://atrium:${mailPassword}@127.0.0.1:${smtp.port}`,
      ATRIUM_MAIL_FROM: "Atrium <no-reply@atrium.test>",
      ATRIUM_PUBLIC_URL: "https://app.atrium.test"
    })
    const replies: Array<string> = []
    const call = async (path: string, body?: unknown, token?: string) => {
      const reply = await json(server.baseUrl, path, body, token)
      replies.push(reply.text, reply.headers)
      return reply
    }
    try {
      const signedUp = await call("/api/auth/sign-up", { email: "ada@example.com", password: "correct horse battery", name: "Ada" })
      expect(signedUp.status).toBe(201)
      await smtp.until(() => smtp.received.length === 1)
      // The server echoes the credential in a refusal: it must still not come back out anywhere.
      smtp.script.push({ step: "MAIL", reply: `554 5.7.1 not for you, atrium:${mailPassword}` })
      expect((await call("/api/auth/password-reset", { email: "ada@example.com" })).status).toBe(202)
      expect((await call("/api/auth/password-reset", { email: "nobody@example.com" })).status).toBe(202)
      await smtp.until(() => smtp.script.length === 0)
      expect((await call("/api/auth/password-reset", { email: "ada@example.com" })).status).toBe(202)
      await smtp.until(() => smtp.received.length === 2)
      const invited = await call("/api/mobile/invitations", { email: "finn@example.com", role: "member" }, signedUp.body.session.accessToken)
      expect(invited.status).toBe(201)
      await smtp.until(() => smtp.received.length === 3)
      const subjects = smtp.received.map((mail) => mail.headers.subject ?? "")
      expect(subjects.slice(0, 2)).toEqual(["Confirm your email address", "Reset your password"])
      expect(subjects[2]).toMatch(/^Ada invited you to .+ on Atrium$/)
      expect(smtp.received[2]?.text).toContain(`https://app.atrium.test/accept-invitation#token=${invited.body.token}`)
      await call("/api/auth/session", undefined, signedUp.body.session.accessToken)
    } finally {
      await server.stop()
      await smtp.close()
    }
    expect(replies.join("\n")).not.toContain(mailPassword)
    expect(server.output()).not.toContain(mailPassword)
    expect(server.output()).not.toMatch(/#token=/)

    const { messages, tables } = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const names = yield* sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public'`
      const tables = yield* Effect.forEach(names, ({ table_name }) => sql`select * from ${sql(table_name)}`.pipe(Effect.map((rows) => ({ table_name, rows }))))
      const messages = yield* sql<{ status: string; last_error: string | null; sealed_token: string | null }>`select status, last_error, sealed_token from mail_messages order by created_at`
      return { messages, tables }
    }).pipe(Effect.provide(EmbeddedPostgres({ dataDir }))))
    expect(tables.length).toBeGreaterThan(10)
    for (const { rows, table_name } of tables) {
      expect(JSON.stringify(rows, (_k, v: unknown) => typeof v === "bigint" ? String(v) : v), table_name).not.toContain(mailPassword)
    }
    expect(messages.map((m) => m.status)).toEqual(["sent", "failed", "sent", "sent"])
    expect(messages[1]?.last_error).toContain("554 5.7.1 not for you, atrium:[redacted]")
    expect(messages.every((m) => m.sealed_token === null)).toBe(true)
  }, 120_000)
})
