import { MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { TestClock } from "effect/testing"
import { AppUnderTest, defaultOptions, type Reply, send } from "./harness.ts"
import { freshEmail, password } from "./identity-harness.ts"
import { isRecord, member, records } from "./json.ts"

const postJson = (path: string, body: unknown, token?: string) =>
  send("POST", path, { body: JSON.stringify(body), ...(token === undefined ? {} : { key: token }) })

const signUp = (email: string) => postJson("/api/auth/sign-up", { email, password, name: "Ada" })

const tokensOf = (reply: Reply) => {
  const session = reply.body.session
  return { access: String(member(session, "accessToken")), refresh: String(member(session, "refreshToken")) }
}

const assertSessionRefused = (reply: Reply, code: string) => {
  assert.strictEqual(reply.status, 401, reply.text)
  assert.strictEqual(reply.body.code, code)
  assert.strictEqual(reply.headers["content-type"], "application/problem+json")
  assert.include(reply.headers["www-authenticate"] ?? "", `Bearer realm="atrium"`)
}

// Everything but the request id, which differs per request by design.
const withoutRequestId = (body: Record<string, unknown>) => {
  const { requestId: _requestId, ...rest } = body
  return rest
}

describe("/api/auth", () => {
  it.effect("sign-up is 201 with the user, a personal workspace and a session; every answer is no-store", () =>
    Effect.gen(function*() {
      const email = freshEmail("ada")
      const reply = yield* signUp(`  ${email.toUpperCase()} `)
      assert.strictEqual(reply.status, 201, reply.text)
      assert.strictEqual(reply.headers["cache-control"], "no-store")
      // The local part keeps the case it was given; the domain is folded.
      const [local, domain] = email.split("@")
      assert.strictEqual(member(reply.body.user, "email"), `${local?.toUpperCase()}@${domain}`)
      assert.strictEqual(member(reply.body.workspace, "personal"), true)
      assert.match(String(member(reply.body.session, "accessToken")), /^at_/)
      assert.match(String(member(reply.body.session, "refreshToken")), /^rt_/)
      assert.isString(member(reply.body.session, "accessTokenExpiresAt"))
      assert.isString(member(reply.body.session, "refreshTokenExpiresAt"))
      const again = yield* signUp(email)
      assert.strictEqual(again.status, 409)
      assert.strictEqual(again.body.code, "email_taken")
      assert.strictEqual(again.headers["cache-control"], "no-store")
      const short = yield* postJson("/api/auth/sign-up", { email: freshEmail("x"), password: "short", name: "X" })
      assert.strictEqual(short.status, 400)
      assert.strictEqual(short.body.code, "invalid_request")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("unknown fields in auth bodies are refused", () =>
    Effect.gen(function*() {
      const reply = yield* postJson("/api/auth/sign-up", { email: freshEmail("x"), password, name: "X", role: "owner" })
      assert.strictEqual(reply.status, 400)
      assert.strictEqual(reply.body.code, "invalid_request")
      assert.isNotEmpty(records(reply.body.errors))
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("sign-in answers an unknown email exactly like a wrong password", () =>
    Effect.gen(function*() {
      const email = freshEmail("ada")
      assert.strictEqual((yield* signUp(email)).status, 201)
      const ok = yield* postJson("/api/auth/sign-in", { email, password })
      assert.strictEqual(ok.status, 200, ok.text)
      assert.strictEqual(member(ok.body.user, "email"), email)
      assert.match(String(member(ok.body.session, "accessToken")), /^at_/)
      assert.strictEqual(ok.headers["cache-control"], "no-store")
      const wrong = yield* postJson("/api/auth/sign-in", { email, password: "not the password at all" })
      const unknown = yield* postJson("/api/auth/sign-in", { email: freshEmail("nobody"), password })
      for (const reply of [wrong, unknown]) {
        assert.strictEqual(reply.status, 401)
        assert.strictEqual(reply.body.code, "invalid_credentials")
        assert.strictEqual(reply.headers["www-authenticate"], `Bearer realm="atrium"`)
        assert.strictEqual(reply.headers["cache-control"], "no-store")
      }
      assert.deepStrictEqual(withoutRequestId(wrong.body), withoutRequestId(unknown.body))
      assert.deepStrictEqual(Object.keys(wrong.body).sort(), Object.keys(unknown.body).sort())
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("refresh rotates the tokens; presenting a spent refresh token ends the whole session", () =>
    Effect.gen(function*() {
      const first = tokensOf(yield* signUp(freshEmail("ada")))
      const rotated = yield* postJson("/api/auth/refresh", { refreshToken: first.refresh })
      assert.strictEqual(rotated.status, 200, rotated.text)
      assert.strictEqual(rotated.headers["cache-control"], "no-store")
      const second = tokensOf(rotated)
      assert.notStrictEqual(second.refresh, first.refresh)
      assert.notStrictEqual(second.access, first.access)
      assert.strictEqual((yield* send("GET", "/api/auth/session", { key: second.access })).status, 200)
      // The replaced access token belongs to a live session: the client is told to refresh, not to sign out.
      assertSessionRefused(yield* send("GET", "/api/auth/session", { key: first.access }), "session_expired")
      // Within the 30 s leeway the spent token answers with the same successor (a retry after a lost response)…
      const retried = yield* postJson("/api/auth/refresh", { refreshToken: first.refresh })
      assert.strictEqual(retried.status, 200, retried.text)
      assert.deepStrictEqual(tokensOf(retried), second)
      // …after it, reuse of the spent refresh token is refused, and the session it belonged to is over.
      yield* TestClock.adjust("31 seconds")
      assertSessionRefused(yield* postJson("/api/auth/refresh", { refreshToken: first.refresh }), "invalid_session")
      assertSessionRefused(yield* send("GET", "/api/auth/session", { key: second.access }), "invalid_session")
      assertSessionRefused(yield* postJson("/api/auth/refresh", { refreshToken: second.refresh }), "invalid_session")
      assertSessionRefused(yield* postJson("/api/auth/refresh", { refreshToken: "rt_garbage" }), "invalid_session")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("GET session, list and revoke sessions, and sign out", () =>
    Effect.gen(function*() {
      const email = freshEmail("ada")
      const up = yield* signUp(email)
      const a = tokensOf(up)
      const b = tokensOf(yield* postJson("/api/auth/sign-in", { email, password }))
      const current = yield* send("GET", "/api/auth/session", { key: a.access })
      assert.strictEqual(current.status, 200, current.text)
      assert.strictEqual(current.headers["cache-control"], "no-store")
      assert.strictEqual(member(current.body.user, "email"), email)
      assert.strictEqual(current.body.activeWorkspaceId, member(up.body.workspace, "id"))
      assert.match(String(member(current.body.session, "id")), /^ses_/)
      assert.isString(member(current.body.session, "expiresAt"))
      const listed = yield* send("GET", "/api/auth/sessions", { key: a.access })
      assert.strictEqual(listed.status, 200)
      const sessions = records(listed.body.data)
      assert.strictEqual(sessions.length, 2)
      assert.strictEqual(sessions.filter((s) => s.current === true).length, 1)
      const other = sessions.find((s) => s.current !== true)
      assert.isDefined(other)
      const revoked = yield* send("DELETE", `/api/auth/sessions/${String(other?.id)}`, { key: a.access })
      assert.strictEqual(revoked.status, 204)
      assertSessionRefused(yield* send("GET", "/api/auth/session", { key: b.access }), "invalid_session")
      // Another user's session is not found.
      const stranger = tokensOf(yield* signUp(freshEmail("eve")))
      const theirs = yield* send("DELETE", `/api/auth/sessions/${String(member(current.body.session, "id"))}`, { key: stranger.access })
      assert.strictEqual(theirs.status, 404)
      const out = yield* send("POST", "/api/auth/sign-out", { key: a.access })
      assert.strictEqual(out.status, 204)
      assert.strictEqual(out.headers["cache-control"], "no-store")
      assertSessionRefused(yield* send("GET", "/api/auth/session", { key: a.access }), "invalid_session")
      assertSessionRefused(yield* postJson("/api/auth/refresh", { refreshToken: a.refresh }), "invalid_session")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("sign-in over the per-email limit is 429 with Retry-After, whether or not the password is right", () =>
    Effect.gen(function*() {
      const email = freshEmail("ada")
      assert.strictEqual((yield* signUp(email)).status, 201)
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* postJson("/api/auth/sign-in", { email, password: "wrong password!" })).status, 401)
      }
      const limited = yield* postJson("/api/auth/sign-in", { email: ` ${email.toUpperCase()}`, password })
      assert.strictEqual(limited.status, 429, limited.text)
      assert.strictEqual(limited.body.code, "rate_limited")
      assert.strictEqual(limited.headers["cache-control"], "no-store")
      assert.isAbove(Number(limited.headers["retry-after"]), 0)
      assert.isAbove(Number(limited.body.retryAfter), 0)
      // Another email from the same address still gets through (its own limit is higher).
      assert.strictEqual((yield* postJson("/api/auth/sign-in", { email: freshEmail("bob"), password })).status, 401)
    }).pipe(Effect.provide(AppUnderTest({
      ...defaultOptions,
      throttles: { signIn: { perEmail: { limit: 3, window: "1 minute" }, perAddress: { limit: 100, window: "1 minute" } } }
    }))))

  it.effect("sign-in over the per-address limit is 429 across different emails", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* postJson("/api/auth/sign-in", { email: freshEmail("spray"), password })).status, 401)
      }
      const limited = yield* postJson("/api/auth/sign-in", { email: freshEmail("spray"), password })
      assert.strictEqual(limited.status, 429)
      assert.isAbove(Number(limited.headers["retry-after"]), 0)
    }).pipe(Effect.provide(AppUnderTest({
      ...defaultOptions,
      throttles: { signIn: { perEmail: { limit: 100, window: "1 minute" }, perAddress: { limit: 3, window: "1 minute" } } }
    }))))

  it.effect("a database outage is 503 on every auth route, never 401", () =>
    Effect.gen(function*() {
      const email = freshEmail("ada")
      const tokens = tokensOf(yield* signUp(email))
      yield* Ref.set((yield* MemoryStore).down, true)
      const replies = [
        yield* signUp(freshEmail("new")),
        yield* postJson("/api/auth/sign-in", { email, password }),
        yield* postJson("/api/auth/refresh", { refreshToken: tokens.refresh }),
        yield* send("POST", "/api/auth/sign-out", { key: tokens.access }),
        yield* send("GET", "/api/auth/session", { key: tokens.access }),
        yield* send("GET", "/api/auth/sessions", { key: tokens.access })
      ]
      for (const reply of replies) {
        assert.strictEqual(reply.status, 503, reply.text)
        assert.strictEqual(reply.body.code, "unavailable")
        assert.isUndefined(reply.headers["www-authenticate"])
        assert.isTrue(isRecord(reply.body))
      }
    }).pipe(Effect.provide(AppUnderTest())))
})
