import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AppUnderTest, send } from "./harness.ts"

const page = "/settings/developers"

describe("the Settings → Developers console", () => {
  it.layer(AppUnderTest())((it) => {
    it.effect("serves the page with a strict policy, no inline code and no CDN", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", page)
        expect(reply.status).toBe(200)
        expect(reply.headers["content-type"]).toContain("text/html")
        const policy = reply.headers["content-security-policy"] ?? ""
        expect(policy).toContain("default-src 'self'")
        expect(policy).toContain("frame-ancestors 'none'")
        expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:/)
        expect(reply.headers["x-frame-options"]).toBe("DENY")
        expect(reply.headers["x-content-type-options"]).toBe("nosniff")
        expect(reply.headers["etag"]).toMatch(/^".+"$/)
        expect(reply.text).toContain("/settings/developers/assets/app.js")
        // Nothing inline that the policy would block, and nothing fetched from elsewhere.
        expect(reply.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i)
        expect(reply.text).not.toMatch(/https?:\/\//)
      }))

    it.effect("serves each asset with its type, an ETag, and 304 while it matches", () =>
      Effect.gen(function*() {
        for (const [name, type] of [["app.js", "text/javascript"], ["console.css", "text/css"], ["icon.svg", "image/svg+xml"]]) {
          const first = yield* send("GET", `${page}/assets/${name}`)
          expect(first.status).toBe(200)
          expect(first.headers["content-type"]).toContain(type)
          expect(first.headers["cache-control"]).toBe("no-cache")
          expect(first.headers["x-content-type-options"]).toBe("nosniff")
          const etag = first.headers["etag"] ?? ""
          expect(etag).toMatch(/^".+"$/)
          const again = yield* send("GET", `${page}/assets/${name}`, { headers: { "if-none-match": `W/"other", ${etag}` } })
          expect(again.status).toBe(304)
          expect(again.text).toBe("")
          const changed = yield* send("GET", `${page}/assets/${name}`, { headers: { "if-none-match": "\"stale\"" } })
          expect(changed.status).toBe(200)
        }
      }))

    it.effect("the scripts name no other origin and never touch cookies or localStorage", () =>
      Effect.gen(function*() {
        for (const name of ["app.js", "session.js", "keys.js", "webhooks.js", "endpoint.js", "dom.js", "sample.js"]) {
          const reply = yield* send("GET", `${page}/assets/${name}`)
          expect(reply.status).toBe(200)
          expect(reply.text).not.toMatch(/(?:from|import\(|fetch\()\s*["'`](?:https?:)?\/\/|document\.cookie|localStorage|innerHTML|eval\(/)
        }
      }))

    it.effect("unknown assets are 404 problems, other methods 405, and paths cannot climb out", () =>
      Effect.gen(function*() {
        const missing = yield* send("GET", `${page}/assets/missing.js`)
        expect(missing.status).toBe(404)
        expect(missing.headers["content-type"]).toContain("application/problem+json")
        expect((yield* send("GET", `${page}/assets/..%2F..%2Fpackage.json`)).status).toBe(404)
        expect((yield* send("GET", `${page}/assets/index.html`)).status).toBe(404)
        const post = yield* send("POST", page)
        expect(post.status).toBe(405)
        expect(post.headers["allow"]).toContain("GET")
      }))
  })
})
