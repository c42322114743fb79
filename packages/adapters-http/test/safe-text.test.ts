import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AppUnderTest, send } from "./harness.ts"
import { freshEmail, password, seedTeam } from "./identity-harness.ts"

// NUL, a lone high and a lone low surrogate, and a C1 control: text that storage and JSON encoders cannot carry faithfully.
const poisons = ["a\u0000b", "a\uD800b", "a\uDC00b", "a\u0085b"]

interface Case {
  readonly method: "POST" | "PATCH" | "PUT"
  readonly path: string
  readonly who: "anonymous" | "admin" | "member"
  readonly headers?: Record<string, string>
  /** The body with one string field set to `text`. */
  readonly body: (text: string) => unknown
}

// Every request string field of the contract, one case per field (ids and enums are patterns already).
const cases: ReadonlyArray<Case> = [
  { method: "POST", path: "/api/auth/sign-up", who: "anonymous", body: (t) => ({ email: `${t}@example.com`, password, name: "Ada" }) },
  { method: "POST", path: "/api/auth/sign-up", who: "anonymous", body: (t) => ({ email: freshEmail("ada"), password: `${password}${t}`, name: "Ada" }) },
  { method: "POST", path: "/api/auth/sign-up", who: "anonymous", body: (t) => ({ email: freshEmail("ada"), password, name: t }) },
  { method: "POST", path: "/api/auth/sign-in", who: "anonymous", body: (t) => ({ email: `${t}@example.com`, password }) },
  { method: "POST", path: "/api/auth/sign-in", who: "anonymous", body: (t) => ({ email: "ada@example.com", password: `${password}${t}` }) },
  { method: "POST", path: "/api/auth/refresh", who: "anonymous", body: (t) => ({ refreshToken: `rt_${t}` }) },
  { method: "POST", path: "/api/auth/verify-email", who: "anonymous", body: (t) => ({ token: `ev_${t}` }) },
  { method: "POST", path: "/api/auth/password-reset", who: "anonymous", body: (t) => ({ email: `${t}@example.com` }) },
  { method: "POST", path: "/api/auth/password-reset/confirm", who: "anonymous", body: (t) => ({ token: `pr_${t}`, password }) },
  { method: "POST", path: "/api/auth/password-reset/confirm", who: "anonymous", body: (t) => ({ token: "pr_x", password: `${password}${t}` }) },
  {
    method: "POST",
    path: "/api/mobile/schedules",
    who: "admin",
    body: (t) => ({ name: t, cron: "0 9 * * 1", timezone: "Europe/Berlin", task: { model: "atrium-local-1", input: { prompt: "hi" } } })
  },
  { method: "POST", path: "/api/mobile/invitations", who: "admin", body: (t) => ({ email: `${t}@example.com`, role: "member" }) },
  { method: "POST", path: "/api/mobile/invitations/accept", who: "member", body: (t) => ({ token: `it_${t}` }) },
  { method: "POST", path: "/api/mobile/api-keys", who: "admin", body: (t) => ({ name: t }) },
  { method: "POST", path: "/api/mobile/webhooks", who: "admin", body: (t) => ({ url: `https://hooks.example.com/${t}` }) },
  { method: "POST", path: "/api/mobile/webhooks", who: "admin", body: (t) => ({ url: "https://hooks.example.com/a", description: t }) },
  { method: "PATCH", path: "/api/mobile/webhooks/whe_0000000000", who: "admin", body: (t) => ({ url: `https://hooks.example.com/${t}` }) },
  { method: "PATCH", path: "/api/mobile/webhooks/whe_0000000000", who: "admin", body: (t) => ({ description: t }) },
  { method: "POST", path: "/api/v1/ai-tasks", who: "member", body: (t) => ({ model: "atrium-local-1", input: { prompt: t } }) },
  { method: "POST", path: "/api/v1/ai-tasks", who: "member", body: (t) => ({ model: t, input: { prompt: "hi" } }) },
  { method: "POST", path: "/api/mobile/feature-requests", who: "member", body: (t) => ({ title: `Dark mode ${t}` }) },
  { method: "POST", path: "/api/mobile/domains", who: "admin", body: (t) => ({ hostname: `app${t}.example.com` }) },
  { method: "POST", path: "/api/mobile/feature-requests", who: "member", body: (t) => ({ title: "Dark mode", details: t }) },
  {
    method: "PUT",
    path: "/api/mobile/appearance",
    who: "member",
    headers: { "if-match": "*" },
    body: (t) => ({ theme: "dark", accentColor: "#112233", textScalePercent: 100, reducedMotion: false, density: "compact", extras: { [t]: true } })
  }
]

describe("the one safe-text rule at the contract", () => {
  it.effect("every request string refuses NUL, lone surrogates and control characters with 400 invalid_request, before any handler", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const tokens = { anonymous: undefined, admin: team.admin.token, member: team.member.token }
      for (const c of cases) {
        for (const poison of poisons) {
          const token = tokens[c.who]
          const reply = yield* send(c.method, c.path, {
            ...(token === undefined ? {} : { key: token }),
            ...(c.headers === undefined ? {} : { headers: c.headers }),
            body: JSON.stringify(c.body(poison))
          })
          const label = `${c.method} ${c.path} ${JSON.stringify(c.body(poison))}`
          assert.strictEqual(reply.status, 400, `${label}: ${reply.text}`)
          assert.strictEqual(reply.body.code, "invalid_request", label)
          // Refused by the request's schema (with `errors`), not by a rule a handler happens to apply.
          assert.strictEqual(reply.body.detail, "Request validation failed", `${label}: ${reply.text}`)
        }
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("ordinary text passes the same fields: accents, emoji, CJK and, in descriptions and prompts, line breaks", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const created = yield* send("POST", "/api/mobile/api-keys", { key: team.admin.token, body: JSON.stringify({ name: "Déploiement 🚀 部署" }) })
      assert.strictEqual(created.status, 201, created.text)
      const signedUp = yield* send("POST", "/api/auth/sign-up", {
        body: JSON.stringify({ email: freshEmail("zoë"), password: `${password} é🚀`, name: "Zoë 🚀" })
      })
      assert.strictEqual(signedUp.status, 201, signedUp.text)
    }).pipe(Effect.provide(AppUnderTest())))
})
