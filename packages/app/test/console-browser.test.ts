// Settings → Developers in a real browser: Debian's Chromium driven by playwright-core against the app server on
// loopback (DATABASE_URL when set, else the embedded database), with a loopback webhook receiver.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { join } from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"
import { ownDatabaseOf, runSql } from "./support/own-database.ts"

const chromiumPath = "/usr/bin/chromium"
const workDir = tempWorkDir("atrium-console-")
/** Screenshots of each main view, for a person to look at. */
const shots = join(workDir, "screenshots")
mkdirSync(shots, { recursive: true })

// The receiver answers 204, or 500 with a body the console must show.
let receiverMode: "ok" | "fail" | "gone" = "ok"
const received: Array<{ readonly id: string | undefined; readonly type: string }> = []
const receiverAnswer = "receiver says no: disk full"
const receiver: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
  let body = ""
  request.on("data", (chunk: Buffer) => { body += chunk.toString() })
  request.on("end", () => {
    const parsed: { type?: unknown } = JSON.parse(body.length === 0 ? "{}" : body)
    received.push({ id: request.headers["webhook-id"]?.toString(), type: String(parsed.type) })
    if (receiverMode === "ok") {
      response.writeHead(204).end()
    } else if (receiverMode === "gone") {
      response.writeHead(410).end()
    } else {
      response.writeHead(500, { "content-type": "text/plain" }).end(receiverAnswer)
    }
  })
})

let server: ServerProcess
let browser: Browser
let receiverUrl = ""
const outside: Array<string> = []
const pageErrors: Array<string> = []
const suffix = Math.random().toString(36).slice(2, 10)
const password = "correct horse battery staple"
const admin = { email: `admin-${suffix}@example.com`, name: "Ada Admin" }
const member = { email: `member-${suffix}@example.com`, name: "Max Member" }
let adminWorkspace = { id: "", name: "" }

// A database of its own on DATABASE_URL's server: another test's server sharing a database would claim this test's
// deliveries with its own worker (and its SSRF guard, which does not allow loopback, would block them).
const ownDatabase = ownDatabaseOf("console")


const json = async (response: Response) => {
  const text = await response.text()
  const value: Record<string, unknown> = text.length === 0 ? {} : JSON.parse(text)
  return value
}

const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: response.status, body: await json(response) }
}

const accessTokenOf = (body: Record<string, unknown>) => {
  const session = body.session
  return typeof session === "object" && session !== null && "accessToken" in session ? String(session.accessToken) : ""
}

/** A fresh browser context that refuses (and records) any request leaving the server's origin. */
const openPage = async (): Promise<{ readonly context: BrowserContext; readonly page: Page }> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const origin = new URL(server.baseUrl).origin
  await context.route("**/*", (route) => {
    const url = route.request().url()
    if (new URL(url).origin === origin) return route.continue()
    outside.push(url)
    return route.abort()
  })
  const page = await context.newPage()
  page.on("pageerror", (error) => pageErrors.push(error.message))
  page.on("console", (message) => {
    // A refused API call logs "Failed to load resource" (expected for the member); anything else is a bug or a CSP violation.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) pageErrors.push(message.text())
  })
  return { context, page }
}

const signIn = async (page: Page, email: string, shot?: string) => {
  await page.goto(`${server.baseUrl}/settings/developers`)
  await page.getByLabel("Email").waitFor()
  if (shot !== undefined) await page.screenshot({ path: join(shots, shot), fullPage: true })
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { name: "API keys" }).waitFor()
}

const chooseWorkspace = async (page: Page, workspaceId: string) => {
  const picker = page.getByLabel("Workspace")
  if ((await picker.inputValue()) === workspaceId) return
  await picker.selectOption(workspaceId)
  await page.getByText("Switched to", { exact: false }).waitFor({ state: "attached" })
}

beforeAll(async () => {
  expect(existsSync(chromiumPath), `${chromiumPath} is missing: apt-get install -y chromium`).toBe(true)
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const address = receiver.address()
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hooks`
  const allow = { ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.0/8", ATRIUM_RATE_LIMIT_PER_MINUTE: "6000" }
  if (ownDatabase !== undefined) await runSql(ownDatabase.adminUrl, `CREATE DATABASE "${ownDatabase.name}"`)
  server = ownDatabase !== undefined
    ? await startServer({ ...allow, DATABASE_URL: ownDatabase.url, ATRIUM_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") })
    : await startServer({ ...allow, ATRIUM_DATA_DIR: join(workDir, "data") })
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
  })

  // The admin owns a workspace; the member joins it as a member through an invitation.
  const adminUp = await call("POST", "/api/auth/sign-up", undefined, { ...admin, password })
  expect(adminUp.status).toBe(201)
  const workspace = adminUp.body.workspace
  adminWorkspace = typeof workspace === "object" && workspace !== null && "id" in workspace && "name" in workspace
    ? { id: String(workspace.id), name: String(workspace.name) }
    : adminWorkspace
  const memberUp = await call("POST", "/api/auth/sign-up", undefined, { ...member, password })
  expect(memberUp.status).toBe(201)
  const invited = await call("POST", "/api/mobile/invitations", accessTokenOf(adminUp.body), { email: member.email, role: "member" })
  expect(invited.status).toBe(201)
  const accepted = await call("POST", "/api/mobile/invitations/accept", accessTokenOf(memberUp.body), { token: invited.body.token })
  expect(accepted.status).toBeLessThan(300)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
  if (ownDatabase !== undefined) await runSql(ownDatabase.adminUrl, `DROP DATABASE IF EXISTS "${ownDatabase.name}" WITH (FORCE)`)
  // The screenshots stay for review when KEEP_CONSOLE_SHOTS is set; the folder is printed either way.
  console.log(`console screenshots: ${shots}`)
  if (process.env.KEEP_CONSOLE_SHOTS === undefined) rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

describe("Settings → Developers in Chromium", () => {
  it("serves the page with a strict policy and caches assets by ETag", async () => {
    const page = await fetch(`${server.baseUrl}/settings/developers`)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'")
    expect(page.headers.get("content-security-policy")).not.toContain("unsafe-inline")
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    expect(page.headers.get("x-content-type-options")).toBe("nosniff")
    const html = await page.text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|\son[a-z]+=/i)
    const asset = await fetch(`${server.baseUrl}/settings/developers/assets/app.js`)
    const etag = asset.headers.get("etag") ?? ""
    expect(etag).toMatch(/^".+"$/)
    const again = await fetch(`${server.baseUrl}/settings/developers/assets/app.js`, { headers: { "if-none-match": etag } })
    expect(again.status).toBe(304)
    expect((await fetch(`${server.baseUrl}/settings/developers/assets/missing.js`)).status).toBe(404)
  })

  it("an admin signs in, creates a key seen once, revokes it and the API refuses it", async () => {
    const { context, page } = await openPage()
    try {
      await signIn(page, admin.email, "sign-in.png")
      await chooseWorkspace(page, adminWorkspace.id)
      await page.screenshot({ path: join(shots, "keys-empty.png"), fullPage: true })

      // The dialog takes focus, Escape closes it, and focus returns to the button that opened it.
      const createButton = page.getByRole("button", { name: "Create key" })
      await createButton.click()
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("key-name")
      await page.keyboard.press("Escape")
      await expect(createButton.evaluate((button) => button === document.activeElement)).resolves.toBe(true)
      await createButton.click()
      await page.getByLabel("Name").fill("Billing sync")
      await page.getByLabel(/webhooks:write/).check()
      await page.screenshot({ path: join(shots, "key-create.png"), fullPage: true })
      await page.getByRole("button", { name: "Create key" }).last().click()
      const secret = page.getByLabel("Your new API key")
      await secret.waitFor()
      const key = await secret.inputValue()
      expect(key).toMatch(/^sk_live_/)
      await expect(page.getByRole("alert").filter({ hasText: "shown only this once" }).count()).resolves.toBe(1)
      await page.screenshot({ path: join(shots, "key-secret-once.png"), fullPage: true })
      // Escape asks before the secret goes; keeping it open leaves it there.
      await page.keyboard.press("Escape")
      await page.getByText("Close without storing it?").waitFor()
      expect(await secret.inputValue()).toBe(key)
      await page.getByRole("button", { name: "Keep it open" }).click()
      await expect(page.getByText("Close without storing it?").isVisible()).resolves.toBe(false)
      await page.getByRole("button", { name: "I have stored it" }).click()

      // The key works, the list shows its prefix and scopes, and after a reload the plaintext is nowhere.
      expect((await call("GET", "/api/v1/workspaces/current", key)).status).toBe(200)
      await page.reload()
      const row = page.getByRole("row", { name: /Billing sync/ })
      await row.waitFor()
      await expect(row.textContent()).resolves.toContain(key.slice(0, 12))
      await expect(row.textContent()).resolves.toContain("webhooks:write")
      expect(await page.content()).not.toContain(key)
      await page.screenshot({ path: join(shots, "keys-list.png"), fullPage: true })

      // Revoke with confirmation: cancelling keeps it, confirming stops it.
      await row.getByRole("button", { name: "Revoke Billing sync" }).click()
      await page.getByRole("button", { name: "Cancel" }).click()
      expect((await call("GET", "/api/v1/workspaces/current", key)).status).toBe(200)
      await row.getByRole("button", { name: "Revoke Billing sync" }).click()
      await page.getByRole("button", { name: "Revoke key" }).click()
      await page.getByRole("row", { name: /Billing sync/ }).filter({ hasText: "Revoked" }).first().waitFor()
      const refused = await call("GET", "/api/v1/workspaces/current", key)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe("api_key_revoked")
      await page.screenshot({ path: join(shots, "keys-revoked.png"), fullPage: true })
    } finally {
      await context.close()
    }
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
  }, 90_000)

  it("an admin rolls a key: the new key is shown once, the old one works only for the grace", async () => {
    const session = await call("POST", "/api/auth/sign-in", undefined, { email: admin.email, password })
    const created = await call("POST", "/api/mobile/api-keys", accessTokenOf(session.body), { name: "Deploy bot", scopes: ["read"] })
    expect(created.status).toBe(201)
    const firstKey = String(created.body.key)
    const { context, page } = await openPage()
    try {
      await signIn(page, admin.email)
      const row = page.getByRole("row", { name: /Deploy bot/ })
      await row.waitFor()

      // An hour of grace: both keys work, and the rolled one shows when it stops.
      await row.getByRole("button", { name: "Roll Deploy bot" }).click()
      await page.getByLabel("Grace period").selectOption("3600")
      await page.screenshot({ path: join(shots, "key-roll.png"), fullPage: true })
      await page.getByRole("button", { name: "Roll key" }).click()
      const secret = page.getByLabel("Your new API key")
      await secret.waitFor()
      const secondKey = await secret.inputValue()
      expect(secondKey).toMatch(/^sk_live_/)
      expect(secondKey).not.toBe(firstKey)
      await page.getByRole("button", { name: "I have stored it" }).click()
      expect((await call("GET", "/api/v1/workspaces/current", secondKey)).status).toBe(200)
      expect((await call("GET", "/api/v1/workspaces/current", firstKey)).status).toBe(200)
      const inGrace = page.getByRole("row", { name: /Deploy bot/ }).filter({ has: page.locator(".badge.warn") })
      await inGrace.waitFor()
      // A rolled key is not offered another roll (the server would refuse it), and the page shows the ids it names.
      expect(await inGrace.getByRole("button", { name: "Roll Deploy bot" }).count()).toBe(0)
      await expect(inGrace.textContent()).resolves.toMatch(/rolled to key_/)
      await page.screenshot({ path: join(shots, "keys-rolled.png"), fullPage: true })

      // No grace: the key it replaces is refused at once as expired.
      const current = page.getByRole("row", { name: /Deploy bot/ }).filter({ has: page.locator(".badge.good") })
      await current.getByRole("button", { name: "Roll Deploy bot" }).click()
      await page.getByLabel("Grace period").selectOption("0")
      await page.getByRole("button", { name: "Roll key" }).click()
      await secret.waitFor()
      const thirdKey = await secret.inputValue()
      await page.getByRole("button", { name: "I have stored it" }).click()
      // The dialog leaves the page on its (asynchronous) close event; read the page only after it has gone.
      await secret.waitFor({ state: "detached" })
      expect((await call("GET", "/api/v1/workspaces/current", thirdKey)).status).toBe(200)
      const refused = await call("GET", "/api/v1/workspaces/current", secondKey)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe("api_key_expired")
      expect(await page.content()).not.toContain(thirdKey)
    } finally {
      await context.close()
    }
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
  }, 60_000)

  it("an admin adds an endpoint, sends a test, sees a failure with the receiver's answer and replays it", async () => {
    const { context, page } = await openPage()
    try {
      await signIn(page, admin.email)
      await chooseWorkspace(page, adminWorkspace.id)
      await page.getByRole("link", { name: "Webhooks" }).click()
      await page.getByRole("heading", { name: "Webhooks" }).waitFor()
      await page.getByRole("button", { name: "Add endpoint" }).click()
      await page.getByLabel("Endpoint URL").fill(receiverUrl)
      await page.getByLabel("Description (optional)").fill("Loopback receiver")
      await page.getByLabel("Only the events I pick").check()
      await page.getByLabel("webhook.test", { exact: true }).check()
      await page.getByLabel("api_key.created", { exact: true }).check()
      // Each type says what it means and shows a sample payload.
      const testType = page.locator(".event-type").filter({ hasText: "webhook.test" })
      await testType.getByText("Sample payload").click()
      await expect(testType.locator("pre").textContent()).resolves.toContain("\"type\": \"webhook.test\"")
      await page.screenshot({ path: join(shots, "endpoint-create.png"), fullPage: true })
      await page.getByRole("button", { name: "Add endpoint" }).last().click()
      const secret = page.getByLabel("Signing secret")
      await secret.waitFor()
      expect(await secret.inputValue()).toMatch(/^whsec_/)
      await page.getByRole("button", { name: "I have stored it" }).click()
      await page.getByRole("link", { name: receiverUrl }).click()
      await page.getByRole("heading", { name: receiverUrl }).waitFor()

      // A test event arrives at the receiver; its delivery succeeded with one attempt.
      receiverMode = "ok"
      await page.getByRole("button", { name: "Send test event" }).click()
      const succeeded = page.locator(".delivery[data-status=succeeded]").first()
      await succeeded.waitFor({ timeout: 20_000 })
      await succeeded.locator("summary").click()
      await succeeded.locator("tr.attempt").first().waitFor()
      await expect(succeeded.locator("tr.attempt").first().textContent()).resolves.toContain("HTTP 204")
      expect(received.some((delivery) => delivery.type === "webhook.test")).toBe(true)
      // The delivery shows what was sent: its headers and exact payload, in a region the keyboard can scroll.
      const payload = succeeded.getByRole("region", { name: /Payload of delivery/ })
      await payload.waitFor()
      await expect(payload.textContent()).resolves.toContain("\"type\": \"webhook.test\"")
      await expect(payload.getAttribute("tabindex")).resolves.toBe("0")
      await expect(succeeded.locator("dl.headers").textContent()).resolves.toContain("webhook-id")
      await page.screenshot({ path: join(shots, "deliveries-succeeded.png"), fullPage: true })

      // A test of a chosen type: an example api_key.created reaches the receiver.
      await page.getByLabel("Test event type").selectOption("api_key.created")
      await page.getByRole("button", { name: "Send test event" }).click()
      await page.locator(".delivery[data-status=succeeded]").filter({ hasText: "api_key.created" }).first().waitFor({ timeout: 20_000 })
      expect(received.some((delivery) => delivery.type === "api_key.created")).toBe(true)
      await page.getByLabel("Test event type").selectOption("webhook.test")

      // The receiver fails: the attempt shows its status, error kind and what it answered.
      receiverMode = "fail"
      await page.getByRole("button", { name: "Send test event" }).click()
      const failing = page.locator(".delivery").filter({ hasText: "last HTTP 500" }).first()
      await failing.waitFor({ timeout: 20_000 })
      await failing.locator("summary").click()
      const failedAttempt = failing.locator("tr.attempt").first()
      await failedAttempt.waitFor()
      await expect(failedAttempt.textContent()).resolves.toContain("HTTP 500")
      await expect(failedAttempt.textContent()).resolves.toContain("non_2xx")
      await expect(failedAttempt.textContent()).resolves.toContain(receiverAnswer)
      await page.screenshot({ path: join(shots, "deliveries-failed.png"), fullPage: true })

      // Replay it once the receiver is back: a new delivery of the same event succeeds.
      receiverMode = "ok"
      const failedId = await failing.getAttribute("data-delivery-id")
      const before = received.length
      await failing.getByRole("button", { name: "Replay" }).click()
      await page.getByText("Replay queued").waitFor()
      await page.locator(".delivery[data-status=succeeded]").filter({ hasText: `replay of ${failedId}` }).waitFor({ timeout: 20_000 })
      expect(received.length).toBeGreaterThan(before)

      // Filter by status: only succeeded deliveries remain listed.
      await page.getByLabel("Status").selectOption("succeeded")
      await page.locator("[data-filter=succeeded] .delivery").first().waitFor()
      const statuses = await page.locator("[data-filter=succeeded] .delivery").evaluateAll((items) => items.map((item) => item.getAttribute("data-status")))
      expect(statuses.length).toBeGreaterThan(0)
      expect(new Set(statuses)).toEqual(new Set(["succeeded"]))
      await page.screenshot({ path: join(shots, "deliveries-replayed.png"), fullPage: true })

      // The list shows the endpoint's health and last attempt.
      await page.getByRole("link", { name: "← All endpoints" }).click()
      const card = page.locator(".endpoint").filter({ hasText: receiverUrl })
      await card.waitFor()
      await expect(card.textContent()).resolves.toMatch(/Healthy|Failing/)
      await expect(card.textContent()).resolves.toContain("HTTP")
      await page.screenshot({ path: join(shots, "webhooks-list.png"), fullPage: true })

      // On a narrow screen the same views stay usable.
      await page.setViewportSize({ width: 380, height: 800 })
      await page.screenshot({ path: join(shots, "webhooks-narrow.png"), fullPage: true })
      await page.getByRole("link", { name: receiverUrl }).click()
      await page.locator(".delivery").first().waitFor()
      await page.locator(".delivery summary").first().click()
      await page.locator(".delivery tr.attempt").first().waitFor()
      await page.screenshot({ path: join(shots, "deliveries-narrow.png"), fullPage: true })
      await page.getByRole("link", { name: "API keys" }).click()
      await page.getByRole("row", { name: /Billing sync/ }).first().waitFor()
      await page.screenshot({ path: join(shots, "keys-narrow.png"), fullPage: true })
    } finally {
      await context.close()
    }
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
  }, 120_000)

  it("an endpoint answering 410 is disabled; enable, recover the failed, rotate the secret and delete it", async () => {
    const session = await call("POST", "/api/auth/sign-in", undefined, { email: admin.email, password })
    const token = accessTokenOf(session.body)
    const created = await call("POST", "/api/mobile/webhooks", token, { url: `${receiverUrl}/gone`, eventTypes: ["webhook.test"] })
    expect(created.status).toBe(201)
    const endpointId = String(created.body.id)
    const { context, page } = await openPage()
    try {
      await signIn(page, admin.email)
      await page.goto(`${server.baseUrl}/settings/developers#webhooks/${endpointId}`)
      await page.getByRole("heading", { name: `${receiverUrl}/gone` }).waitFor()

      // 410 Gone: the delivery fails at once and the endpoint is disabled, and the page says why.
      receiverMode = "gone"
      await page.getByRole("button", { name: "Send test event" }).click()
      await page.locator(".delivery[data-status=failed]").first().waitFor({ timeout: 20_000 })
      await page.reload()
      await page.getByText("Disabled: the endpoint answered 410 Gone").waitFor()
      expect(await page.getByRole("button", { name: "Send test event" }).isDisabled()).toBe(true)
      await page.screenshot({ path: join(shots, "endpoint-disabled.png"), fullPage: true })

      // Enable it, then recover every failed delivery since the default time (a day ago): a new delivery succeeds.
      receiverMode = "ok"
      await page.getByRole("button", { name: "Enable" }).click()
      await page.getByRole("button", { name: "Disable" }).waitFor()
      await page.getByRole("button", { name: "Recover" }).click()
      await page.getByText("1 failed delivery queued again.").waitFor()
      await page.locator(".delivery[data-status=succeeded]").first().waitFor({ timeout: 20_000 })

      // Disable and enable by hand.
      await page.getByRole("button", { name: "Disable" }).click()
      await page.getByText("Disabled: disabled by a person").waitFor()
      await page.getByRole("button", { name: "Enable" }).click()
      await page.getByText("Healthy").waitFor()

      // Rotate with grace: a new secret, shown once.
      await page.getByRole("button", { name: "Rotate secret" }).click()
      await page.getByLabel("Grace period").selectOption("3600")
      await page.getByRole("button", { name: "Rotate secret" }).last().click()
      const secret = page.getByLabel("New signing secret")
      await secret.waitFor()
      expect(await secret.inputValue()).toMatch(/^whsec_/)
      await page.getByRole("button", { name: "I have stored it" }).click()

      // Delete, confirmed: back on the list, the endpoint is gone.
      await page.getByRole("button", { name: "Delete" }).click()
      await page.getByRole("button", { name: "Delete endpoint" }).click()
      await page.getByRole("heading", { name: "Webhooks" }).waitFor()
      await page.locator(".endpoint").first().waitFor()
      expect(await page.locator(`[data-endpoint-id="${endpointId}"]`).count()).toBe(0)
      expect((await call("GET", `/api/mobile/webhooks/${endpointId}`, token)).status).toBe(404)
    } finally {
      await context.close()
    }
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
  }, 90_000)

  it("refreshes once on session_expired and signs out on invalid_session", async () => {
    const { context, page } = await openPage()
    try {
      await signIn(page, admin.email)
      const refreshes: Array<string> = []
      page.on("request", (request) => {
        if (request.url().endsWith("/api/auth/refresh")) refreshes.push(request.method())
      })
      // The next key listing answers as if the access token had expired: the page refreshes and retries, once.
      let expired = 0
      await page.route("**/api/mobile/api-keys?*", async (route) => {
        if (expired++ > 0) return route.fallback()
        await route.fulfill({
          status: 401,
          contentType: "application/problem+json",
          body: JSON.stringify({ status: 401, code: "session_expired", detail: "The access token has expired" })
        })
      })
      await page.getByRole("link", { name: "Webhooks" }).click()
      await page.getByRole("heading", { name: "Webhooks" }).waitFor()
      await page.getByRole("link", { name: "API keys" }).click()
      await page.getByRole("row", { name: /Billing sync/ }).first().waitFor()
      expect(expired).toBe(2)
      expect(refreshes).toEqual(["POST"])
      await page.unroute("**/api/mobile/api-keys?*")

      // A refused session ends at once: back to sign-in, the tokens forgotten.
      await page.route("**/api/mobile/webhooks?*", (route) =>
        route.fulfill({
          status: 401,
          contentType: "application/problem+json",
          body: JSON.stringify({ status: 401, code: "invalid_session", detail: "The session is not valid" })
        }))
      await page.getByRole("link", { name: "Webhooks" }).click()
      await page.getByRole("heading", { name: "Sign in" }).waitFor()
      await page.getByText("Your session has ended").waitFor()
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
      expect(refreshes).toEqual(["POST"])
    } finally {
      await context.close()
    }
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
  }, 60_000)

  it("the mailed invitation link opens a page that signs the invitee in and joins the workspace; the token leaves the address bar", async () => {
    const invitee = { email: `invitee-${suffix}@example.com`, name: "Invitee" }
    const adminToken = accessTokenOf((await call("POST", "/api/auth/sign-in", undefined, { email: admin.email, password })).body)
    const invited = await call("POST", "/api/mobile/invitations", adminToken, { email: invitee.email, role: "member" })
    expect(invited.status).toBe(201)
    expect((await call("POST", "/api/auth/sign-up", undefined, { ...invitee, password })).status).toBe(201)
    const { context, page } = await openPage()
    try {
      await page.goto(`${server.baseUrl}/accept-invitation#token=${encodeURIComponent(String(invited.body.token))}`)
      await page.getByRole("heading", { name: "Join the workspace" }).waitFor()
      expect(page.url()).not.toContain("token")
      await page.getByLabel("Email").fill(invitee.email)
      await page.getByLabel("Password").fill(password)
      await page.screenshot({ path: join(shots, "accept-invitation.png"), fullPage: true })
      const signedIn = page.waitForResponse((response) => response.url().endsWith("/api/auth/sign-in"))
      await page.getByRole("button", { name: "Sign in and join" }).click()
      const pageToken = accessTokenOf(await (await signedIn).json())
      await page.getByRole("heading", { name: "You joined the workspace" }).waitFor()
      // The session the page signed in with served that one step and is gone: none is left behind.
      expect(pageToken).toMatch(/^at_/)
      expect((await call("GET", "/api/auth/session", pageToken)).status).toBe(401)
      const inviteeToken = accessTokenOf((await call("POST", "/api/auth/sign-in", undefined, { email: invitee.email, password })).body)
      const organization = await call("GET", "/api/mobile/organization", inviteeToken)
      expect(JSON.stringify(organization.body.memberships)).toContain(adminWorkspace.id)
      // A link without its token says so instead of posting nothing.
      await page.goto(`${server.baseUrl}/verify-email`)
      await page.getByRole("heading", { name: "This link is incomplete" }).waitFor()
    } finally {
      await context.close()
    }
  }, 60_000)

  it("a member sees why the console is read-only, and no management controls", async () => {
    const { context, page } = await openPage()
    try {
      // Keyboard only: the email field has focus, Tab to the password, Enter signs in; focus lands on the view's heading.
      await page.goto(`${server.baseUrl}/settings/developers`)
      await page.getByLabel("Email").waitFor()
      await page.keyboard.type(member.email)
      await page.keyboard.press("Tab")
      await page.keyboard.type(password)
      await page.keyboard.press("Enter")
      await page.getByRole("heading", { name: "API keys" }).waitFor()
      await chooseWorkspace(page, adminWorkspace.id)
      // Told once that the page is read-only, with what they can do instead; nothing the server would refuse is asked.
      await page.getByRole("heading", { name: "What you can do" }).waitFor()
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("API keys")
      await expect(page.getByRole("note").count()).resolves.toBe(1)
      await expect(page.getByRole("note").textContent()).resolves.toContain("read-only")
      await expect(page.getByText("read-only").count()).resolves.toBe(1)
      await expect(page.getByText("403").count()).resolves.toBe(0)
      await expect(page.getByRole("link", { name: "API documentation" }).count()).resolves.toBe(1)
      expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0)
      await page.screenshot({ path: join(shots, "member-keys.png"), fullPage: true })
      await page.getByRole("link", { name: "Webhooks" }).click()
      await page.getByRole("heading", { name: "Webhooks" }).waitFor()
      await expect(page.getByRole("note").count()).resolves.toBe(1)
      expect(await page.getByRole("button", { name: "Add endpoint" }).count()).toBe(0)
      await page.screenshot({ path: join(shots, "member-webhooks.png"), fullPage: true })

      // Signing out forgets the session: a reload asks to sign in again.
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.getByRole("heading", { name: "Sign in" }).waitFor()
      expect(await page.getByRole("navigation", { name: "Developer settings" }).isVisible()).toBe(false)
      await page.reload()
      await page.getByRole("heading", { name: "Sign in" }).waitFor()
      const stored = await page.evaluate(() => [document.cookie, JSON.stringify(sessionStorage)])
      expect(stored).toEqual(["", "{}"])
    } finally {
      await context.close()
    }
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
  }, 60_000)
})
