// /api/docs in a real browser: Debian's Chromium driven by playwright-core against the app server on loopback (its own
// embedded database), with axe-core on each page, at a desktop and a phone width. Any request leaving the server's
// origin is refused and recorded; the page must not need one.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"

const chromiumPath = "/usr/bin/chromium"
const workDir = tempWorkDir("atrium-docs-")
/** Screenshots of each view and width, for a person to look at (kept with KEEP_DOCS_SHOTS=1). */
const shots = join(workDir, "screenshots")
mkdirSync(shots, { recursive: true })
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

const widths = [{ width: 1280, height: 900 }, { width: 390, height: 844 }] as const

let server: ServerProcess
let browser: Browser

interface Visit {
  readonly page: Page
  readonly outside: Array<string>
  readonly problems: Array<string>
  readonly close: () => Promise<void>
}

/** Opens `path` in a fresh context of the given size, refusing (and recording) requests to any other origin. */
const visit = async (path: string, viewport: { readonly width: number; readonly height: number }): Promise<Visit> => {
  const context = await browser.newContext({ viewport })
  const origin = new URL(server.baseUrl).origin
  const outside: Array<string> = []
  const problems: Array<string> = []
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url())
    if (url.origin === origin || url.protocol === "data:" || url.protocol === "blob:") return route.continue()
    outside.push(url.href)
    return route.abort()
  })
  const page = await context.newPage()
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`))
  page.on("console", (message) => {
    const text = message.text()
    if (message.type() === "warning" || message.type() === "error") problems.push(`${message.type()}: ${text}`)
  })
  await page.goto(`${server.baseUrl}${path}`)
  return { page, outside, problems, close: () => context.close() }
}

// axe-core's serious and critical findings, as "rule: target" lines. Evaluated through the DevTools protocol, which the
// page's Content-Security-Policy does not govern (the page itself may run no inline script but its own).
const axeViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const found = await page.evaluate(async () => {
    const runner: unknown = Reflect.get(window, "axe")
    const run = typeof runner === "object" && runner !== null ? Reflect.get(runner, "run") : undefined
    if (typeof run !== "function") return ["axe-core did not load"]
    const results: { violations: Array<{ id: string; impact?: string | null; nodes: Array<{ target: Array<unknown> }> }> } =
      await run.call(runner, document, { resultTypes: ["violations"] })
    return results.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.slice(0, 3).map((node) => node.target.join(" ")).join(", ")}`)
  })
  return found
}

beforeAll(async () => {
  expect(existsSync(chromiumPath), `${chromiumPath} is missing: apt-get install -y chromium`).toBe(true)
  server = await startServer({ ATRIUM_DATA_DIR: join(workDir, "data") })
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
  })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  console.log(`docs screenshots: ${shots}`)
  if (process.env.KEEP_DOCS_SHOTS === undefined) rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

describe("/api/docs in Chromium", () => {
  it("is served under a Content-Security-Policy that names no other origin", async () => {
    for (const path of ["/api/docs", "/api/docs/errors"]) {
      const response = await fetch(`${server.baseUrl}${path}`)
      expect(response.status).toBe(200)
      const policy = response.headers.get("content-security-policy") ?? ""
      expect(policy).toContain("default-src 'self'")
      expect(policy).toContain("font-src 'self' data:")
      expect(policy).toContain("connect-src 'self'")
      expect(policy).not.toMatch(/https?:|\*/)
    }
  })

  for (const viewport of widths) {
    it(`opens on the reference at ${viewport.width} px: no skeleton, no off-origin request, no serious axe finding`, async () => {
      const { close, outside, page, problems } = await visit("/api/docs", viewport)
      try {
        // The reference's title is on the first screen, and one reference is mounted (not an empty one above it).
        const title = page.getByRole("heading", { level: 1, name: "Atrium API v1" })
        await title.waitFor({ timeout: 60_000 })
        const box = await title.boundingBox()
        expect(box, "the reference's title has a box").not.toBeNull()
        expect(box?.y ?? Infinity).toBeLessThan(viewport.height)
        expect(await page.locator("main.references-rendered").count()).toBe(1)
        expect(await page.locator("[aria-label='Sidebar for undefined']").count()).toBe(0)
        // The introduction's first section is rendered too, not a placeholder.
        await page.getByRole("heading", { name: "Authentication" }).first().waitFor()
        await page.screenshot({ path: join(shots, `docs-${viewport.width}.png`) })
        expect(await axeViolations(page)).toEqual([])
        expect(outside).toEqual([])
        expect(problems.filter((line) => /configList|Content Security Policy|Refused to/i.test(line))).toEqual([])
      } finally {
        await close()
      }
    }, 120_000)

    it(`the session document at ${viewport.width} px documents push payloads and duplicates, with no serious axe finding`, async () => {
      const { close, outside, page } = await visit("/api/docs?api=mobile", viewport)
      try {
        await page.getByRole("heading", { level: 1, name: "Atrium session API (mobile and console)" }).waitFor({ timeout: 60_000 })
        await page.getByRole("heading", { name: "Push notifications" }).first().waitFor()
        await page.getByRole("heading", { name: "Feature requests: possible duplicates" }).first().waitFor()
        await page.screenshot({ path: join(shots, `docs-mobile-${viewport.width}.png`) })
        await page.getByRole("heading", { name: "Push notifications" }).first().scrollIntoViewIfNeeded()
        await page.screenshot({ path: join(shots, `docs-mobile-push-${viewport.width}.png`) })
        expect(await axeViolations(page)).toEqual([])
        expect(outside).toEqual([])
      } finally {
        await close()
      }
    }, 120_000)

    it(`the error reference at ${viewport.width} px lists every code with no serious axe finding`, async () => {
      const { close, outside, page, problems } = await visit("/api/docs/errors", viewport)
      try {
        await page.getByRole("heading", { level: 1, name: "Errors" }).waitFor()
        await page.locator("#domain_taken").waitFor()
        await page.screenshot({ path: join(shots, `errors-${viewport.width}.png`) })
        expect(await axeViolations(page)).toEqual([])
        expect(outside).toEqual([])
        expect(problems).toEqual([])
      } finally {
        await close()
      }
    }, 60_000)
  }
})
