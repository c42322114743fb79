import { assert, describe, it } from "@effect/vitest"
import {
  Accounts,
  EmailVerification,
  Invitations,
  MailDelivery,
  MailOutbox,
  MailRepository,
  MailSendFailure,
  PasswordReset,
  renderMail,
  SecretHasher
} from "@atrium/domain"
import { Domain, memoryPublicUrl, MemoryStore, ScriptedMailbox } from "@atrium/domain/testing"
import { DateTime, Effect, Logger, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { password, principalOf, signUp } from "../support/identity.ts"
import { handleResetRequests, lastMailTo, mailbox, sendDue, tokenIn } from "../support/mail.ts"

const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
const logLines: Array<string> = []
const collectLogs = Logger.layer([Logger.formatJson.pipe(Logger.map((line) => void logLines.push(line)))])
const script = (...failures: ReadonlyArray<MailSendFailure>) => Effect.flatMap(ScriptedMailbox, (box) => Ref.set(box.script, failures))
const messages = state.pipe(Effect.map((s) => Array.from(s.mailMessages.values())))

describe("email verification", () => {
  it.effect("sign-up mails one link; it verifies the address once, and the session's user says so", () =>
    Effect.gen(function*() {
      const { user } = yield* signUp("ada@example.com", "Ada")
      assert.isFalse(user.emailVerified)
      assert.strictEqual((yield* messages).length, 1)
      yield* sendDue
      const mail = yield* lastMailTo("ada@example.com")
      assert.isDefined(mail)
      assert.strictEqual(mail?.subject, "Confirm your email address")
      assert.include(mail?.text, `${memoryPublicUrl}/verify-email#token=ev_`)
      assert.include(mail?.html, `${memoryPublicUrl}/verify-email#token=ev_`)
      const token = tokenIn(mail?.text ?? "")
      const verification = yield* EmailVerification
      const verified = yield* verification.verify(token)
      assert.isTrue(verified.emailVerified)
      const again = yield* verification.verify(token).pipe(Effect.flip)
      assert.strictEqual(again.code, "invalid_token")
      // Stored: only the digest, and the message no longer holds the (sealed) token once sent.
      const s = yield* state
      const stored = Array.from(s.accountTokens.values())
      assert.strictEqual(stored.length, 1)
      assert.strictEqual(stored[0]?.digest, yield* (yield* SecretHasher).digest(token))
      assert.isTrue(Array.from(s.mailMessages.values()).every((m) => m.status === "sent" && Option.isNone(m.sealedToken)))
      assert.isTrue(Option.isSome(s.users.get(user.id)?.user.emailVerifiedAt ?? Option.none()))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a link expires after 24 hours; a resent one works, and resending to a verified address is refused", () =>
    Effect.gen(function*() {
      const { user } = yield* signUp("bob@example.com", "Bob")
      yield* sendDue
      const first = tokenIn((yield* lastMailTo("bob@example.com"))?.text ?? "")
      yield* TestClock.adjust("24 hours")
      const verification = yield* EmailVerification
      assert.strictEqual((yield* verification.verify(first).pipe(Effect.flip)).code, "invalid_token")
      yield* verification.resend(user.id)
      yield* sendDue
      const second = tokenIn((yield* lastMailTo("bob@example.com"))?.text ?? "")
      assert.notStrictEqual(Redacted.value(second), Redacted.value(first))
      yield* TestClock.adjust("23 hours")
      assert.isTrue((yield* verification.verify(second)).emailVerified)
      assert.strictEqual((yield* verification.resend(user.id).pipe(Effect.flip)).code, "email_already_verified")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("tokens of the wrong shape or purpose are refused without a lookup", () =>
    Effect.gen(function*() {
      yield* signUp("cy@example.com", "Cy")
      yield* sendDue
      const token = tokenIn((yield* lastMailTo("cy@example.com"))?.text ?? "")
      const reset = yield* PasswordReset
      // A verification token is no reset token.
      assert.strictEqual((yield* reset.confirm(token, password).pipe(Effect.flip)).code, "invalid_token")
      const verification = yield* EmailVerification
      for (const bad of ["", "ev_short", `pr_${"a".repeat(33)}`, `ev_${"a".repeat(33)}`]) {
        assert.strictEqual((yield* verification.verify(Redacted.make(bad)).pipe(Effect.flip)).code, "invalid_token")
      }
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("password reset", () => {
  it.effect("answers alike for known and unknown addresses; only a known one gets a message", () =>
    Effect.gen(function*() {
      yield* signUp("dee@example.com", "Dee")
      const before = (yield* messages).length
      const reset = yield* PasswordReset
      const known = yield* reset.request("  DEE@example.com ")
      const unknown = yield* reset.request("nobody@example.com")
      const malformed = yield* reset.request("not an address")
      assert.deepStrictEqual([known, unknown, malformed], [undefined, undefined, undefined])
      // Asking does the same for both: one recorded request each, nothing else; the worker tells them apart later.
      const asked = yield* state
      assert.deepStrictEqual(Array.from(asked.resetRequests.values(), (r) => r.request.email).sort(), ["DEE@example.com", "nobody@example.com"])
      assert.strictEqual(asked.mailMessages.size, before)
      const audited = asked.audit.length
      yield* handleResetRequests
      assert.strictEqual((yield* state).resetRequests.size, 0)
      assert.strictEqual((yield* state).audit.length, audited + 1)
      const after = yield* messages
      assert.strictEqual(after.length, before + 1)
      assert.deepStrictEqual(after.filter((m) => m.template === "password_reset").map((m) => m.to), ["dee@example.com"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the link sets the password once, revokes every session, verifies the address, and dies after an hour", () =>
    Effect.gen(function*() {
      const { session } = yield* signUp("eve@example.com", "Eve")
      yield* sendDue
      const accounts = yield* Accounts
      const other = yield* accounts.signIn({ email: "eve@example.com", password })
      const reset = yield* PasswordReset
      yield* reset.request("eve@example.com")
      yield* sendDue
      const mail = yield* lastMailTo("eve@example.com")
      assert.strictEqual(mail?.subject, "Reset your password")
      const token = tokenIn(mail?.text ?? "")
      assert.strictEqual((yield* reset.confirm(token, Redacted.make("short")).pipe(Effect.flip)).code, "invalid_request")
      const fresh = Redacted.make("a brand new password")
      yield* reset.confirm(token, fresh)
      for (const issued of [session, other.session]) {
        assert.strictEqual((yield* accounts.authenticateSession(issued.accessToken).pipe(Effect.flip)).code, "invalid_session")
      }
      assert.strictEqual((yield* accounts.signIn({ email: "eve@example.com", password }).pipe(Effect.flip))._tag, "InvalidCredentials")
      const signedIn = yield* accounts.signIn({ email: "eve@example.com", password: fresh })
      assert.isTrue(signedIn.user.emailVerified)
      assert.strictEqual((yield* reset.confirm(token, Redacted.make("yet another password")).pipe(Effect.flip)).code, "invalid_token")

      yield* reset.request("eve@example.com")
      yield* sendDue
      const late = tokenIn((yield* lastMailTo("eve@example.com"))?.text ?? "")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* reset.confirm(late, Redacted.make("too late password")).pipe(Effect.flip)).code, "invalid_token")
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("invitations by mail", () => {
  it.effect("the invitee gets a link carrying the very token the API returns, and it joins them", () =>
    Effect.gen(function*() {
      const owner = yield* signUp("owner@example.com", "Olivia Owner")
      const principal = yield* principalOf(owner.session)
      const created = yield* (yield* Invitations).create(principal, { email: "Finn@Example.com", role: "admin" })
      yield* sendDue
      // Mailed to the address as given: only the receiving server may fold a local part's case.
      const mail = yield* lastMailTo("Finn@example.com")
      assert.strictEqual(mail?.subject, `Olivia Owner invited you to ${owner.workspace.name} on Atrium`)
      assert.include(mail?.text, `${memoryPublicUrl}/accept-invitation#token=`)
      const token = tokenIn(mail?.text ?? "")
      assert.strictEqual(Redacted.value(token), Redacted.value(created.token))
      const finn = yield* signUp("finn@example.com", "Finn")
      const accepted = yield* (yield* Invitations).accept(finn.user.id, token)
      assert.strictEqual(accepted.membership.role, "admin")
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("the outbox and the sender", () => {
  it.effect("one message per change: a second enqueue of the same change stores nothing", () =>
    Effect.gen(function*() {
      const outbox = yield* MailOutbox
      const request = {
        dedupeKey: "password_reset:tok_same",
        to: "gil@example.com",
        content: { template: "password_reset", name: "Gil" },
        token: Redacted.make("pr_x"),
        linkExpiresAt: DateTime.makeUnsafe("2100-01-01T00:00:00Z")
      } as const
      assert.isTrue(Option.isSome(yield* outbox.enqueue(request)))
      assert.isTrue(Option.isNone(yield* outbox.enqueue(request)))
      assert.strictEqual((yield* messages).length, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a temporary failure is retried after a backoff and then sent; a permanent one is recorded and never retried", () =>
    Effect.gen(function*() {
      yield* signUp("hal@example.com", "Hal")
      yield* script(new MailSendFailure({ kind: "temporary", detail: "421 4.3.2 try again later" }))
      const [first] = yield* sendDue
      assert.strictEqual(first?.status, "pending")
      assert.strictEqual(first?.attempts, 1)
      assert.deepStrictEqual(first?.lastError, Option.some("421 4.3.2 try again later"))
      assert.isTrue(Option.isSome(first?.sealedToken ?? Option.none()))
      // Not due yet: the first retry waits about 30 seconds (±20 %).
      assert.deepStrictEqual(yield* sendDue, [])
      yield* TestClock.adjust("37 seconds")
      const [second] = yield* sendDue
      assert.strictEqual(second?.status, "sent")
      assert.strictEqual(second?.attempts, 2)
      assert.strictEqual((yield* mailbox).length, 1)

      yield* signUp("ivy@example.com", "Ivy")
      yield* script(new MailSendFailure({ kind: "permanent", detail: "550 5.1.1 no such user" }))
      const [refused] = yield* sendDue
      assert.strictEqual(refused?.status, "failed")
      assert.deepStrictEqual(refused?.lastError, Option.some("550 5.1.1 no such user"))
      assert.isTrue(Option.isNone(refused?.sealedToken ?? Option.some("")))
      yield* TestClock.adjust("1 day")
      assert.deepStrictEqual(yield* sendDue, [])
      assert.strictEqual((yield* mailbox).length, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("temporary failures until the schedule runs out fail the message for good", () =>
    Effect.gen(function*() {
      yield* (yield* MailOutbox).enqueue({
        dedupeKey: "invitation:inv_long",
        to: "jo@example.com",
        content: { template: "invitation", workspaceName: "Acme", inviterName: "Ann", role: "member" },
        token: Redacted.make("it_x"),
        linkExpiresAt: DateTime.makeUnsafe("2100-01-01T00:00:00Z")
      })
      const temporary = new MailSendFailure({ kind: "temporary", detail: "451 local error" })
      yield* script(...Array.from({ length: 20 }, () => temporary))
      let last: ReadonlyArray<{ readonly status: string; readonly attempts: number }> = []
      for (let i = 0; i < 12; i++) {
        const settled = yield* sendDue
        if (settled.length > 0) last = settled
        yield* TestClock.adjust("10 hours")
      }
      assert.deepStrictEqual(last.map((m) => [m.status, m.attempts]), [["failed", 9]])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a TLS failure is retried only up to its bound, then failed for good with the reason; each failed attempt is logged without the token", () =>
    Effect.gen(function*() {
      const token = "it_tlsBoundSecretToken42"
      yield* (yield* MailOutbox).enqueue({
        dedupeKey: "invitation:inv_tls",
        to: "jo@example.com",
        content: { template: "invitation", workspaceName: "Acme", inviterName: "Ann", role: "member" },
        token: Redacted.make(token),
        linkExpiresAt: DateTime.makeUnsafe("2100-01-01T00:00:00Z")
      })
      // The server's refusal quotes the link: neither the record nor the log may keep the token.
      const untrusted = new MailSendFailure({ kind: "tls", detail: `ESOCKET (CERT_HAS_EXPIRED) near #token=${token}` })
      yield* script(...Array.from({ length: 20 }, () => untrusted))
      const settled: Array<{ readonly status: string; readonly attempts: number }> = []
      for (let i = 0; i < 12; i++) {
        settled.push(...(yield* sendDue))
        yield* TestClock.adjust("10 hours")
      }
      assert.deepStrictEqual(settled.map((m) => [m.status, m.attempts]), [["pending", 1], ["pending", 2], ["failed", 3]])
      const [failed] = (yield* messages).filter((m) => m.to === "jo@example.com")
      assert.deepStrictEqual(failed?.lastError, Option.some("TLS failed 3 times, given up: ESOCKET (CERT_HAS_EXPIRED) near #token=[token]"))
      const warnings = logLines.filter((line) => line.includes("mail attempt failed") || line.includes("mail message failed for good"))
      assert.strictEqual(warnings.length, 3)
      assert.include(warnings[0], "CERT_HAS_EXPIRED")
      assert.notInclude(logLines.join("\n"), token)
      assert.notInclude(JSON.stringify(yield* state), token)
    }).pipe(Effect.provide(Domain.layerMemory), Effect.provide(collectLogs)))

  it.effect("a message whose link expired before it could be sent is failed, not sent dead", () =>
    Effect.gen(function*() {
      yield* (yield* PasswordReset).request("kim@example.com")
      yield* signUp("kim@example.com", "Kim")
      yield* Effect.flatMap(MailDelivery, (d) => d.claim(0))
      yield* (yield* PasswordReset).request("kim@example.com")
      yield* handleResetRequests
      yield* TestClock.adjust("2 hours")
      const settled = yield* sendDue
      const reset = settled.find((m) => m.template === "password_reset")
      assert.strictEqual(reset?.status, "failed")
      assert.deepStrictEqual(reset?.lastError, Option.some("the link expired before the message could be sent"))
      // The verification link (24 h) was still good and went out.
      assert.deepStrictEqual((yield* mailbox).map((m) => m.subject), ["Confirm your email address"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a claimed message is leased: a second sender does not see it until the lease runs out", () =>
    Effect.gen(function*() {
      yield* signUp("lou@example.com", "Lou")
      const delivery = yield* MailDelivery
      assert.strictEqual((yield* delivery.claim(10)).length, 1)
      assert.strictEqual((yield* delivery.claim(10)).length, 0)
      yield* TestClock.adjust("5 minutes")
      const [again] = yield* delivery.claim(10)
      assert.strictEqual(again?.to, "lou@example.com")
      const repo = yield* MailRepository
      assert.deepStrictEqual((yield* repo.listByRecipient("lou@example.com", 10)).map((m) => m.id), [again?.id])
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("templates", () => {
  it("render plain text and HTML around the link only, escaping what people typed", () => {
    const link = "https://atrium.test/accept-invitation#token=it_abc"
    const mail = renderMail(
      { template: "invitation", workspaceName: "<script>alert(1)</script>\r\nBcc: x@evil.test", inviterName: "Mallory & Co", role: "member" },
      link,
      Option.none()
    )
    assert.notInclude(mail.subject, "\n")
    assert.notInclude(mail.subject, "\r")
    assert.notInclude(mail.html, "<script>")
    assert.include(mail.html, "&lt;script&gt;")
    assert.include(mail.html, "Mallory &amp; Co")
    assert.include(mail.text, link)
    assert.include(mail.html, `href="${link}"`)
  })
})
