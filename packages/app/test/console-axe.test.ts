// Every view of Settings → Developers and of the account pages, in Debian's Chromium at 1280 and 390 px, checked with
// axe-core: no serious or critical violation, and no request leaving the server's origin. Screenshots of each view
// are kept in the folder printed at the end (KEEP_CONSOLE_SHOTS=1 keeps it after the run).
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"
import { ownDatabaseOf, runSql } from "./support/own-database.ts"

const chromiumPath = "/usr/bin/chromium"
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
const workDir = tempWorkDir("atrium-console-axe-")
const shots = join(workDir, "screenshots")
mkdirSync(shots, { recursive: true })
const suffix = Math.random().toString(36).slice(2, 10)
const password = "correct horse battery staple"

const ownDatabase = ownDatabaseOf("console_axe")


// A loopback receiver that takes every delivery.
const receiver: Server = createServer((request, response) => {
  request.resume()
  request.on("end", () => response.writeHead(204).end())
})

let server: ServerProcess
let browser: Browser
let receiverUrl = ""

type Body = Record<string, unknown>
const call = async (method: string, path: string, token?: string, body?: unknown) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await response.text()
  const parsed: Body = text.length === 0 ? {} : JSON.parse(text)
  return { status: response.status, body: parsed }
}
const field = (body: Body, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, key) => (typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined), body)

const admin = { email: `axe-admin-${suffix}@example.com`, name: "Ada Admin" }
const member = { email: `axe-member-${suffix}@example.com`, name: "Max Member" }
let workspaceId = ""
let endpointId = ""
let invitationToken = ""

beforeAll(async () => {
  expect(existsSync(chromiumPath), `${chromiumPath} is missing: apt-get install -y chromium`).toBe(true)
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const address = receiver.address()
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hooks`
  const env = { ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.0/8", ATRIUM_RATE_LIMIT_PER_MINUTE: "6000" }
  if (ownDatabase !== undefined) await runSql(ownDatabase.adminUrl, `CREATE DATABASE "${ownDatabase.name}"`)
  server = ownDatabase !== undefined
    ? await startServer({ ...env, DATABASE_URL: ownDatabase.url, ATRIUM_SECRET_KEY: Buffer.alloc(32, 5).toString("base64") })
    : await startServer({ ...env, ATRIUM_DATA_DIR: join(workDir, "data") })
  browser = await chromium.launch({ executablePath: chromiumPath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] })

  // An admin with a key, its requests, an endpoint with a delivered test event; a member of the same workspace.
  const adminUp = await call("POST", "/api/auth/sign-up", undefined, { ...admin, password })
  expect(adminUp.status).toBe(201)
  const adminToken = String(field(adminUp.body, "session", "accessToken"))
  workspaceId = String(field(adminUp.body, "workspace", "id"))
  const key = await call("POST", "/api/mobile/api-keys", adminToken, { name: "Billing sync", scopes: ["read"] })
  expect(key.status).toBe(201)
  const first = await call("POST", "/api/mobile/api-keys", adminToken, { name: "Deploy bot", scopes: ["read"] })
  expect((await call("POST", `/api/mobile/api-keys/${String(field(first.body, "apiKey", "id"))}/roll`, adminToken, { graceSeconds: 3600 })).status).toBe(201)
  for (const path of ["/api/v1/workspaces/current", "/api/v1/entitlements", "/api/v1/webhook-endpoints/whe_0000000000000000000000"]) {
    await call("GET", path, String(key.body.key))
  }
  const endpoint = await call("POST", "/api/mobile/webhooks", adminToken, { url: receiverUrl, description: "Loopback receiver", eventTypes: ["webhook.test", "api_key.created"] })
  expect(endpoint.status).toBe(201)
  endpointId = String(endpoint.body.id)
  expect((await call("POST", `/api/mobile/webhooks/${endpointId}/test`, adminToken)).status).toBe(202)
  const memberUp = await call("POST", "/api/auth/sign-up", undefined, { ...member, password })
  const invited = await call("POST", "/api/mobile/invitations", adminToken, { email: member.email, role: "member" })
  expect((await call("POST", "/api/mobile/invitations/accept", String(field(memberUp.body, "session", "accessToken")), { token: invited.body.token })).status).toBeLessThan(300)
  // An invitation still open, for the accept page.
  invitationToken = String((await call("POST", "/api/mobile/invitations", adminToken, { email: `axe-later-${suffix}@example.com`, role: "member" })).body.token)
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
  if (ownDatabase !== undefined) await runSql(ownDatabase.adminUrl, `DROP DATABASE IF EXISTS "${ownDatabase.name}" WITH (FORCE)`)
  console.log(`console screenshots: ${shots}`)
  if (process.env.KEEP_CONSOLE_SHOTS === undefined) rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

const signIn = async (page: Page, email: string) => {
  await page.goto(`${server.baseUrl}/settings/developers`)
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { name: "API keys" }).waitFor()
  const picker = page.getByLabel("Workspace")
  if ((await picker.inputValue()) !== workspaceId) {
    await picker.selectOption(workspaceId)
    await page.getByText("Switched to", { exact: false }).waitFor({ state: "attached" })
  }
}
const openView = async (page: Page, hash: string, heading: string) => {
  await page.goto(`${server.baseUrl}/settings/developers#${hash}`)
  await page.getByRole("heading", { name: heading, exact: true }).first().waitFor()
}

/** A view: how to reach it from a fresh page, and whom it needs signed in. */
interface View {
  readonly name: string
  readonly as?: "admin" | "member"
  readonly open: (page: Page) => Promise<void>
}

const views: ReadonlyArray<View> = [
  { name: "sign-in", open: (page) => page.goto(`${server.baseUrl}/settings/developers`).then(() => page.getByLabel("Email").waitFor()) },
  { name: "sign-up", open: (page) => page.goto(`${server.baseUrl}/settings/developers#sign-up`).then(() => page.getByRole("heading", { name: "Create an account" }).waitFor()) },
  {
    name: "forgot-password",
    open: async (page) => {
      await page.goto(`${server.baseUrl}/settings/developers#forgot-password`)
      await page.getByLabel("Email").fill(`nobody-${suffix}@example.com`)
      await page.getByRole("button", { name: "Send the link" }).click()
      await page.getByText("If an account uses this address").waitFor()
    }
  },
  { name: "keys", as: "admin", open: (page) => openView(page, "keys", "API keys").then(() => page.getByRole("row", { name: /Deploy bot/ }).first().waitFor()) },
  {
    name: "key-create",
    as: "admin",
    open: async (page) => {
      await openView(page, "keys", "API keys")
      await page.getByRole("button", { name: "Create key" }).click()
      await page.getByLabel("Name").fill("Reporting")
    }
  },
  {
    name: "key-secret-once",
    as: "admin",
    open: async (page) => {
      await openView(page, "keys", "API keys")
      await page.getByRole("button", { name: "Create key" }).click()
      await page.getByLabel("Name").fill(`Shown once ${Date.now()}`)
      await page.getByRole("button", { name: "Create key" }).last().click()
      await page.getByLabel("Your new API key").waitFor()
      await page.keyboard.press("Escape")
      await page.getByText("Close without storing it?").waitFor()
    }
  },
  { name: "webhooks", as: "admin", open: (page) => openView(page, "webhooks", "Webhooks").then(() => page.locator(".endpoint").first().waitFor()) },
  {
    name: "endpoint-create",
    as: "admin",
    open: async (page) => {
      await openView(page, "webhooks", "Webhooks")
      await page.getByRole("button", { name: "Add endpoint" }).click()
      await page.getByLabel("Only the events I pick").check()
      await page.locator(".event-type").first().getByText("Sample payload").click()
      // An error the server gives shows beside the button, not below the list.
      await page.getByLabel("Endpoint URL").fill("http://hooks.example.com/x")
      await page.getByLabel("webhook.test", { exact: true }).check()
      await page.getByRole("button", { name: "Add endpoint" }).last().click()
      await page.locator("#endpoint-problem .error").waitFor()
    }
  },
  {
    name: "endpoint-deliveries",
    as: "admin",
    open: async (page) => {
      await page.goto(`${server.baseUrl}/settings/developers#webhooks/${endpointId}`)
      const delivered = page.locator(".delivery[data-status=succeeded]").first()
      await delivered.waitFor({ timeout: 20_000 })
      await delivered.locator("summary").click()
      await delivered.getByRole("region", { name: /Payload of delivery/ }).waitFor()
    }
  },
  { name: "request-logs", as: "admin", open: (page) => openView(page, "logs", "Request logs").then(() => page.locator("table.logs tbody tr").first().waitFor({ timeout: 15_000 })) },
  { name: "member-keys", as: "member", open: (page) => openView(page, "keys", "API keys").then(() => page.getByRole("heading", { name: "What you can do" }).waitFor()) },
  { name: "member-webhooks", as: "member", open: (page) => openView(page, "webhooks", "Webhooks").then(() => page.getByRole("heading", { name: "What you can do" }).waitFor()) },
  { name: "member-request-logs", as: "member", open: (page) => openView(page, "logs", "Request logs").then(() => page.getByRole("heading", { name: "What you can do" }).waitFor()) },
  { name: "verify-email-incomplete", open: (page) => page.goto(`${server.baseUrl}/verify-email`).then(() => page.getByRole("heading", { name: "This link is incomplete" }).waitFor()) },
  {
    name: "verify-email-used",
    open: (page) => page.goto(`${server.baseUrl}/verify-email#token=vt_unknown`).then(() => page.getByRole("heading", { name: "This link cannot be used" }).waitFor())
  },
  { name: "reset-password", open: (page) => page.goto(`${server.baseUrl}/reset-password#token=rt_unknown`).then(() => page.getByRole("heading", { name: "Choose a new password" }).waitFor()) },
  {
    name: "accept-invitation",
    open: (page) => page.goto(`${server.baseUrl}/accept-invitation#token=${encodeURIComponent(invitationToken)}`).then(() => page.getByRole("heading", { name: "Join the workspace" }).waitFor())
  }
]

interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
}

// axe runs in the page through the debugging protocol, so the page's own policy (no inline script) stays in force.
const seriousViolations = async (page: Page): Promise<ReadonlyArray<string>> => {
  await page.evaluate(axeSource)
  const found: ReadonlyArray<Violation> = await page.evaluate(async () => {
    const axe = Reflect.get(window, "axe")
    const result = await axe.run(document, { resultTypes: ["violations"] })
    return result.violations
  })
  return found
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)
}

describe("every console view, with axe-core, in Chromium", () => {
  for (const width of [1280, 390]) {
    it(`at ${width} px: no serious or critical violation, no off-origin request`, async () => {
      const problems: Array<string> = []
      const outside: Array<string> = []
      const origin = new URL(server.baseUrl).origin
      let current = ""
      const newTab = async () => {
        const context = await browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 } })
        await context.route("**/*", (route) => {
          const url = route.request().url()
          if (new URL(url).origin === origin) return route.continue()
          outside.push(`${current}: ${url}`)
          return route.abort()
        })
        const page = await context.newPage()
        page.on("pageerror", (error) => problems.push(`${current}: page error ${error.message}`))
        return page
      }
      // One tab per member, signed in once as a person would: the sign-in throttle allows 10 a minute per email, fewer
      // than a sign-in per view at both widths. Each view still opens on a fresh document; the session stays in the tab.
      const signedIn = new Map<"admin" | "member", Page>()
      const tabFor = async (as: "admin" | "member") => {
        const open = signedIn.get(as)
        if (open !== undefined) return open
        const page = await newTab()
        await signIn(page, as === "admin" ? admin.email : member.email)
        signedIn.set(as, page)
        return page
      }
      try {
        for (const view of views) {
          current = view.name
          const page = view.as === undefined ? await newTab() : await tabFor(view.as)
          try {
            await page.goto("about:blank")
            await view.open(page)
            await page.screenshot({ path: join(shots, `${view.name}-${width}.png`), fullPage: true })
            for (const violation of await seriousViolations(page)) problems.push(`${view.name} at ${width}px: ${violation}`)
            // Nothing sticks out sideways on a phone.
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
            if (overflow > 1) problems.push(`${view.name} at ${width}px: the page scrolls sideways by ${overflow}px`)
          } finally {
            if (view.as === undefined) await page.context().close()
          }
        }
      } finally {
        for (const page of signedIn.values()) await page.context().close()
      }
      expect(problems).toEqual([])
      expect(outside).toEqual([])
    }, 240_000)
  }
})
