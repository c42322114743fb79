import { MailDelivery, MailSendFailure, PasswordReset } from "@atrium/domain"
import { MemoryStore, ScriptedMailbox } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { AppUnderTest, defaultOptions, type Reply, send } from "./harness.ts"
import { freshEmail, password } from "./identity-harness.ts"
import { member, records } from "./json.ts"

const postJson = (path: string, body: unknown, token?: string) =>
  send("POST", path, { body: JSON.stringify(body), ...(token === undefined ? {} : { key: token }) })

const signUp = (email: string) =>
  postJson("/api/auth/sign-up", { email, password, name: "Ada" }).pipe(
    Effect.map((reply) => ({ reply, access: String(member(reply.body.session, "accessToken")) }))
  )

// One pass of the reset-request worker and the mail sender, then the token of the newest link mailed to `email`.
const mailedToken = (email: string) =>
  Effect.gen(function*() {
    const { requestQueue } = yield* PasswordReset
    yield* Effect.forEach(yield* requestQueue.claim(100), requestQueue.step)
    const delivery = yield* MailDelivery
    yield* Effect.forEach(yield* delivery.claim(100), delivery.deliver)
    const sent = yield* Ref.get((yield* ScriptedMailbox).sent)
    const text = sent.filter((mail) => mail.to === email).at(-1)?.text ?? ""
    return /#token=([0-9A-Za-z_]+)/.exec(text)?.[1] ?? ""
  })

const mailCount = Effect.flatMap(ScriptedMailbox, (box) => Ref.get(box.sent)).pipe(Effect.map((sent) => sent.length))

const emailVerified = (access: string) =>
  send("GET", "/api/auth/session", { key: access }).pipe(Effect.map((reply) => member(reply.body.user, "emailVerified")))

const withoutRequestId = (reply: Reply) => {
  const { "x-request-id": _id, date: _date, ...headers } = reply.headers
  return { status: reply.status, text: reply.text, headers }
}

describe("/api/auth mail flows", () => {
  it.effect("sign-up mails a link; verify-email spends it once; the session says the address is verified", () =>
    Effect.gen(function*() {
      const email = freshEmail("ada")
      const { access, reply } = yield* signUp(email)
      assert.strictEqual(member(reply.body.user, "emailVerified"), false)
      assert.strictEqual(yield* emailVerified(access), false)
      const token = yield* mailedToken(email)
      assert.match(token, /^ev_/)
      const verified = yield* postJson("/api/auth/verify-email", { token })
      assert.strictEqual(verified.status, 204, verified.text)
      assert.strictEqual(verified.headers["cache-control"], "no-store")
      assert.strictEqual(yield* emailVerified(access), true)
      const again = yield* postJson("/api/auth/verify-email", { token })
      assert.strictEqual(again.status, 400)
      assert.strictEqual(again.body.code, "invalid_token")
      assert.strictEqual(again.headers["content-type"], "application/problem+json")
      const resend = yield* send("POST", "/api/auth/verify-email/resend", { key: access })
      assert.strictEqual(resend.status, 409)
      assert.strictEqual(resend.body.code, "email_already_verified")
      assert.strictEqual((yield* postJson("/api/auth/verify-email", { token, extra: 1 })).status, 400)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("resend mails a fresh link (202) and is limited per account", () =>
    Effect.gen(function*() {
      const email = freshEmail("bob")
      const { access } = yield* signUp(email)
      const first = yield* mailedToken(email)
      assert.strictEqual((yield* send("POST", "/api/auth/verify-email/resend", { key: access })).status, 202)
      const second = yield* mailedToken(email)
      assert.notStrictEqual(second, first)
      assert.strictEqual((yield* send("POST", "/api/auth/verify-email/resend", { key: access })).status, 202)
      const limited = yield* send("POST", "/api/auth/verify-email/resend", { key: access })
      assert.strictEqual(limited.status, 429)
      assert.isAbove(Number(limited.headers["retry-after"]), 0)
      assert.strictEqual((yield* send("POST", "/api/auth/verify-email/resend")).status, 401)
      assert.strictEqual((yield* postJson("/api/auth/verify-email", { token: second })).status, 204)
    }).pipe(Effect.provide(AppUnderTest({
      ...defaultOptions,
      throttles: {
        resendVerification: { perAccount: { limit: 2, window: "1 hour" }, perAddress: { limit: 100, window: "1 hour" } },
        redeemLink: { perAddress: { limit: 100, window: "1 minute" } }
      }
    }))))

  it.effect("password-reset answers 202 alike for known and unknown emails; confirm sets the password and revokes every session", () =>
    Effect.gen(function*() {
      const email = freshEmail("cy")
      const { access } = yield* signUp(email)
      yield* mailedToken(email)
      const before = yield* mailCount
      const known = yield* postJson("/api/auth/password-reset", { email })
      const unknown = yield* postJson("/api/auth/password-reset", { email: freshEmail("nobody") })
      assert.strictEqual(known.status, 202, known.text)
      assert.deepStrictEqual(withoutRequestId(known), withoutRequestId(unknown))
      const token = yield* mailedToken(email)
      assert.strictEqual(yield* mailCount, before + 1)
      assert.match(token, /^pr_/)
      const short = yield* postJson("/api/auth/password-reset/confirm", { token, password: "short" })
      assert.strictEqual(short.status, 400)
      assert.strictEqual(short.body.code, "invalid_request")
      const fresh = "a brand new password"
      assert.strictEqual((yield* postJson("/api/auth/password-reset/confirm", { token, password: fresh })).status, 204)
      const old = yield* send("GET", "/api/auth/session", { key: access })
      assert.strictEqual(old.status, 401)
      assert.strictEqual(old.body.code, "invalid_session")
      assert.strictEqual((yield* postJson("/api/auth/sign-in", { email, password })).status, 401)
      const signedIn = yield* postJson("/api/auth/sign-in", { email, password: fresh })
      assert.strictEqual(signedIn.status, 200)
      assert.strictEqual(member(signedIn.body.user, "emailVerified"), true)
      const reused = yield* postJson("/api/auth/password-reset/confirm", { token, password: "another new password" })
      assert.strictEqual(reused.status, 400)
      assert.strictEqual(reused.body.code, "invalid_token")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("password-reset is limited per email whether or not it has an account, and per client address", () =>
    Effect.gen(function*() {
      const email = freshEmail("dee")
      yield* signUp(email)
      const ghost = freshEmail("ghost")
      for (const target of [email, ghost]) {
        for (let i = 0; i < 2; i++) assert.strictEqual((yield* postJson("/api/auth/password-reset", { email: target })).status, 202)
        const limited = yield* postJson("/api/auth/password-reset", { email: ` ${target.toUpperCase()}` })
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.body.code, "rate_limited")
      }
      const spray = yield* postJson("/api/auth/password-reset", { email: freshEmail("spray") })
      assert.strictEqual(spray.status, 429)
    }).pipe(Effect.provide(AppUnderTest({
      ...defaultOptions,
      throttles: {
        passwordReset: { perEmail: { limit: 2, window: "1 hour" }, perAddress: { limit: 6, window: "1 hour" } }
      }
    }))))

  it.effect("the invitation list shows where each invitation's mail stands: an undeliverable one says failed, not just pending", () =>
    Effect.gen(function*() {
      const { access } = yield* signUp(freshEmail("olive"))
      yield* mailedToken("")
      const invite = (email: string) => postJson("/api/mobile/invitations", { email, role: "member" }, access)
      const listed = send("GET", "/api/mobile/invitations", { key: access }).pipe(
        Effect.map((reply) => records(reply.body.data).map((i) => [i.email, i.status, i.delivery]))
      )
      const bounced = freshEmail("bounced")
      const created = yield* invite(bounced)
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(member(created.body.invitation, "delivery"), "sending")
      assert.deepStrictEqual(yield* listed, [[bounced, "pending", "sending"]])
      yield* Ref.set((yield* ScriptedMailbox).script, [new MailSendFailure({ kind: "permanent", detail: "RCPT TO: 550 5.1.1 no such user" })])
      yield* mailedToken(bounced)
      const delivered = freshEmail("delivered")
      yield* invite(delivered)
      yield* mailedToken(delivered)
      assert.sameDeepMembers(yield* listed, [[bounced, "pending", "failed"], [delivered, "pending", "sent"]])
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a database outage is 503 on the mail routes, never 401 or 202", () =>
    Effect.gen(function*() {
      const email = freshEmail("eve")
      const { access } = yield* signUp(email)
      yield* Ref.set((yield* MemoryStore).down, true)
      const replies = [
        yield* postJson("/api/auth/verify-email", { token: `ev_${"a".repeat(33)}` }),
        yield* postJson("/api/auth/password-reset", { email }),
        yield* postJson("/api/auth/password-reset/confirm", { token: `pr_${"a".repeat(33)}`, password: "long enough password" }),
        yield* send("POST", "/api/auth/verify-email/resend", { key: access })
      ]
      assert.deepStrictEqual(replies.map((reply) => reply.status), [503, 503, 503, 503])
    }).pipe(Effect.provide(AppUnderTest())))
})
