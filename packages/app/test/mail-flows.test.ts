import { Accounts, EmailVerification, Invitations, MailDelivery, PasswordReset } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Logger, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { SmtpMailer } from "@atrium/adapters-smtp"
import { type FakeSmtpServer, type ReceivedMail, startSmtpServer } from "../../adapters-smtp/test/support/smtp-server.ts"

// The mail credential under test: it must reach the SMTP server's AUTH and nothing else.
const mailPassword = "mail-SECRET-5c1e9b7a2d4f"
const publicUrl = "https://app.atrium.test"
const password = Redacted.make("correct horse battery")

let server: FakeSmtpServer
beforeAll(async () => {
  server = await startSmtpServer({ auth: { user: "atrium", password: mailPassword } })
})
afterAll(async () => {
  await server.close()
})

const logLines: Array<string> = []
const collectLogs = Logger.layer([Logger.formatJson.pipe(Logger.map((line) => void logLines.push(line)))])

// The identity and mail services over memory ports, sending through the real SMTP mailer to the loopback server.
const domain = () =>
  Domain.layerMemoryWith({
    publicUrl,
    mail: { retryDelays: [Duration.seconds(30), Duration.minutes(2)] },
    replace: SmtpMailer.layer(
      { host: "127.0.0.1", port: server.port, implicitTls: false, auth: Option.some({ user: "atrium", password: Redacted.make(mailPassword) }) },
      { name: "Atrium", address: "no-reply@atrium.test" },
      { commandTimeout: Duration.seconds(2), connectTimeout: Duration.seconds(2), dataTimeout: Duration.seconds(2) }
    )
  }).pipe(Layer.provideMerge(collectLogs))

// One pass of the workers: the recorded reset requests, then the due messages.
const sendDue = Effect.gen(function*() {
  const { requestQueue } = yield* PasswordReset
  yield* Effect.forEach(yield* requestQueue.claim(100), requestQueue.step)
  const delivery = yield* MailDelivery
  return yield* Effect.forEach(yield* delivery.claim(100), delivery.deliver)
})

const lastTo = (to: string): ReceivedMail | undefined => server.received.filter((mail) => mail.to.includes(to)).at(-1)

const linkToken = (mail: ReceivedMail | undefined, page: string): Redacted.Redacted<string> => {
  const text = mail?.text ?? ""
  const html = mail?.html ?? ""
  const match = new RegExp(`${publicUrl}${page}#token=([0-9A-Za-z_]+)`).exec(text)
  // The same link in both forms.
  assert.include(html, match?.[0] ?? "no link")
  return Redacted.make(match?.[1] ?? "")
}

const signUp = (email: string, name: string) => Effect.flatMap(Accounts, (accounts) => accounts.signUp({ email, password, name }))

describe("mail flows through a real SMTP server on loopback", () => {
  it.effect("the verification link works once and expires after 24 hours", () =>
    Effect.gen(function*() {
      const { user } = yield* signUp("ada@example.com", "Ada")
      yield* sendDue
      const first = lastTo("ada@example.com")
      assert.strictEqual(first?.headers.subject, "Confirm your email address")
      const token = linkToken(first, "/verify-email")
      const verification = yield* EmailVerification
      assert.isTrue((yield* verification.verify(token)).emailVerified)
      assert.strictEqual((yield* verification.verify(token).pipe(Effect.flip)).code, "invalid_token")
      assert.isTrue((yield* (yield* Accounts).current((yield* (yield* Accounts).authenticateSession((yield* (yield* Accounts).signIn({ email: "ada@example.com", password })).session.accessToken)))).emailVerified)

      const bob = yield* signUp("bob@example.com", "Bob")
      yield* sendDue
      const late = linkToken(lastTo("bob@example.com"), "/verify-email")
      yield* TestClock.adjust("24 hours")
      assert.strictEqual((yield* verification.verify(late).pipe(Effect.flip)).code, "invalid_token")
      assert.notStrictEqual(bob.user.id, user.id)
    }).pipe(Effect.provide(domain())))

  it.effect("a reset answers alike for known and unknown addresses, mails only the known one, and revokes every session", () =>
    Effect.gen(function*() {
      const { session } = yield* signUp("cy@example.com", "Cy")
      yield* sendDue
      const reset = yield* PasswordReset
      const before = server.received.length
      assert.deepStrictEqual([yield* reset.request("cy@example.com"), yield* reset.request("nobody@example.com")], [undefined, undefined])
      yield* sendDue
      assert.strictEqual(server.received.length, before + 1)
      assert.isUndefined(lastTo("nobody@example.com"))
      const mail = lastTo("cy@example.com")
      assert.strictEqual(mail?.headers.subject, "Reset your password")
      const fresh = Redacted.make("a whole new password")
      yield* reset.confirm(linkToken(mail, "/reset-password"), fresh)
      const accounts = yield* Accounts
      assert.strictEqual((yield* accounts.authenticateSession(session.accessToken).pipe(Effect.flip)).code, "invalid_session")
      assert.strictEqual((yield* accounts.signIn({ email: "cy@example.com", password }).pipe(Effect.flip))._tag, "InvalidCredentials")
      yield* accounts.signIn({ email: "cy@example.com", password: fresh })
    }).pipe(Effect.provide(domain())))

  it.effect("a temporary SMTP failure is retried after its backoff; a permanent one is recorded and left alone", () =>
    Effect.gen(function*() {
      yield* signUp("dee@example.com", "Dee")
      server.script.push({ step: "RCPT", reply: "451 4.7.1 greylisted, come back later" })
      const [first] = yield* sendDue
      assert.deepStrictEqual([first?.status, first?.attempts, first?.lastError], ["pending", 1, Option.some("RCPT TO: 451 4.7.1 greylisted, come back later")])
      assert.isUndefined(lastTo("dee@example.com"))
      yield* TestClock.adjust("40 seconds")
      const [second] = yield* sendDue
      assert.deepStrictEqual([second?.status, second?.attempts], ["sent", 2])
      assert.strictEqual(lastTo("dee@example.com")?.headers.subject, "Confirm your email address")

      yield* signUp("eve@example.com", "Eve")
      server.script.push({ step: "RCPT", reply: "550 5.1.1 eve@example.com: no such user" })
      const [refused] = yield* sendDue
      assert.deepStrictEqual([refused?.status, refused?.lastError], ["failed", Option.some("RCPT TO: 550 5.1.1 eve@example.com: no such user")])
      yield* TestClock.adjust("1 day")
      assert.deepStrictEqual(yield* sendDue, [])
      const stored = yield* Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
      assert.strictEqual(Array.from(stored.mailMessages.values()).find((m) => m.to === "eve@example.com")?.status, "failed")
    }).pipe(Effect.provide(domain())))

  it.effect("a non-ASCII local part to a server without SMTPUTF8 is failed for good after one attempt, not retried", () =>
    Effect.gen(function*() {
      yield* signUp("zoë@example.com", "Zoë")
      const [refused] = yield* sendDue
      assert.deepStrictEqual(
        [refused?.status, refused?.attempts, refused?.lastError],
        ["failed", 1, Option.some("the recipient address is not ASCII and the server does not offer SMTPUTF8")]
      )
      yield* TestClock.adjust("1 day")
      assert.deepStrictEqual(yield* sendDue, [])
      assert.isTrue(logLines.some((line) => line.includes("mail message failed for good") && line.includes("SMTPUTF8")))
    }).pipe(Effect.provide(domain())))

  it.effect("an invitation email carries a token that joins the invitee", () =>
    Effect.gen(function*() {
      const owner = yield* signUp("owner@example.com", "Olive")
      const principal = yield* (yield* Accounts).authenticate(owner.session.accessToken)
      const created = yield* (yield* Invitations).create(principal, { email: "finn@example.com", role: "member" })
      yield* sendDue
      const token = linkToken(lastTo("finn@example.com"), "/accept-invitation")
      assert.strictEqual(Redacted.value(token), Redacted.value(created.token))
      const finn = yield* signUp("finn@example.com", "Finn")
      const accepted = yield* (yield* Invitations).accept(finn.user.id, token)
      assert.strictEqual(accepted.membership.workspaceId, owner.workspace.id)
    }).pipe(Effect.provide(domain())))

  it.effect("the mail credential is in no stored row, log line or recorded error, even when the server echoes it", () =>
    Effect.gen(function*() {
      yield* signUp("gil@example.com", "Gil")
      server.script.push({ step: "MAIL", reply: `554 5.7.1 policy: user atrium password ${mailPassword} refused` })
      const [refused] = yield* sendDue
      assert.strictEqual(refused?.status, "failed")
      yield* signUp("hal@example.com", "Hal")
      yield* sendDue
      const state = yield* Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
      const rows = JSON.stringify([...state.mailMessages.values(), ...state.accountTokens.values(), ...state.users.values(), ...state.events, ...state.audit])
      assert.include(rows, "[redacted]")
      assert.notInclude(rows, mailPassword)
      assert.isAbove(logLines.length, 0)
      assert.notInclude(logLines.join("\n"), mailPassword)
      assert.notInclude(JSON.stringify(server.received), mailPassword)
    }).pipe(Effect.provide(domain())))
})
