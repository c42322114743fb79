import { Mailer, MailMessageId, type OutgoingMail } from "@atrium/domain"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Duration, Effect, Option, Redacted } from "effect"
import { type SmtpOptions, SmtpMailer, type SmtpServer } from "../src/index.ts"
import { type FakeSmtpServer, makeTestCertificate, startSmtpServer } from "./support/smtp-server.ts"

const password = "smtp-pass-S3CRET-9f2c7a41"
const from = { name: "Atrium Test", address: "no-reply@atrium.test" }
const mail: OutgoingMail = {
  id: MailMessageId.make("eml_4xQ9aZ1b7HkP0mVcT3sLeR"),
  to: "ada@example.com",
  subject: "Confirm your email address",
  text: "Hello Ada,\r\n.leading dot line\r\nhttps://atrium.test/verify-email#token=ev_abc\r\n",
  html: "<p>Hello Ada</p><p><a href=\"https://atrium.test/verify-email#token=ev_abc\">Confirm</a></p>"
}

const certificate = makeTestCertificate()
const servers: Array<FakeSmtpServer> = []
let plain: FakeSmtpServer
let secured: FakeSmtpServer
let loginOnly: FakeSmtpServer
let unicode: FakeSmtpServer
beforeAll(async () => {
  plain = await startSmtpServer()
  secured = await startSmtpServer({ tls: certificate, auth: { user: "atrium", password } })
  loginOnly = await startSmtpServer({ tls: certificate, auth: { user: "atrium", password }, mechanisms: ["LOGIN"] })
  unicode = await startSmtpServer({ smtpUtf8: true })
  servers.push(plain, secured, loginOnly, unicode)
})
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
})

const at = (server: FakeSmtpServer, auth = true, host = "127.0.0.1"): SmtpServer => ({
  host,
  port: server.port,
  implicitTls: false,
  auth: auth ? Option.some({ user: "atrium", password: Redacted.make(password) }) : Option.none()
})

const fast: Partial<SmtpOptions> = { commandTimeout: Duration.millis(500), connectTimeout: Duration.seconds(2), dataTimeout: Duration.millis(500), tls: { ca: certificate.cert } }

const send = (server: SmtpServer, options = fast, message: OutgoingMail = mail) =>
  Effect.flatMap(Mailer, (mailer) => mailer.send(message)).pipe(Effect.provide(SmtpMailer.layer(server, from, options)))

describe("SMTP mailer", () => {
  it.live("delivers a multipart message in plain text and HTML to a loopback server without TLS or AUTH", () =>
    Effect.gen(function*() {
      yield* send(at(plain, false))
      const got = plain.received.at(-1)
      assert.strictEqual(got?.from, "no-reply@atrium.test")
      assert.deepStrictEqual(got?.to, ["ada@example.com"])
      assert.strictEqual(got?.headers.subject, "Confirm your email address")
      assert.strictEqual(got?.headers["message-id"], "<eml_4xQ9aZ1b7HkP0mVcT3sLeR@atrium.test>")
      assert.strictEqual(got?.headers.from, "Atrium Test <no-reply@atrium.test>")
      assert.strictEqual(got?.headers["auto-submitted"], "auto-generated")
      assert.strictEqual(got?.text, mail.text)
      assert.strictEqual(got?.html, mail.html)
    }))

  it.live("upgrades with STARTTLS before AUTH PLAIN, so the credential never crosses in the clear", () =>
    Effect.gen(function*() {
      yield* send(at(secured))
      assert.strictEqual(secured.received.at(-1)?.text, mail.text)
      assert.isTrue(secured.plaintextLines.includes("STARTTLS"))
      assert.isFalse(secured.plaintextLines.some((line) => line.startsWith("AUTH") || line.startsWith("MAIL")))
    }))

  it.live("logs in with AUTH LOGIN when that is all the server offers", () =>
    Effect.gen(function*() {
      yield* send({ ...at(loginOnly), host: "localhost" })
      assert.strictEqual(loginOnly.received.at(-1)?.to[0], "ada@example.com")
    }))

  it.live("a 4xx reply is a temporary failure and a 5xx reply a permanent one, naming the step", () =>
    Effect.gen(function*() {
      plain.script.push({ step: "RCPT", reply: "451 4.3.0 mailbox busy, try later" })
      const busy = yield* send(at(plain, false)).pipe(Effect.flip)
      assert.deepStrictEqual([busy.kind, busy.detail], ["temporary", "RCPT TO: 451 4.3.0 mailbox busy, try later"])
      plain.script.push({ step: "RCPT", reply: "550 5.1.1 no such user" })
      const missing = yield* send(at(plain, false)).pipe(Effect.flip)
      assert.deepStrictEqual([missing.kind, missing.detail], ["permanent", "RCPT TO: 550 5.1.1 no such user"])
      plain.script.push({ step: "END", reply: "554 5.7.1 rejected as spam" })
      assert.strictEqual((yield* send(at(plain, false)).pipe(Effect.flip)).kind, "permanent")
      plain.script.push({ step: "greeting", reply: "421 4.3.2 too busy" })
      assert.strictEqual((yield* send(at(plain, false)).pipe(Effect.flip)).kind, "temporary")
    }))

  it.live("a server that stops answering, or is not there, is a temporary failure", () =>
    Effect.gen(function*() {
      plain.script.push({ step: "END", reply: "stall" })
      const stalled = yield* send(at(plain, false)).pipe(Effect.flip)
      assert.strictEqual(stalled.kind, "temporary")
      assert.match(stalled.detail, /timed out/)
      const closed = yield* send({ ...at(plain, false), port: 1 }).pipe(Effect.flip)
      assert.strictEqual(closed.kind, "temporary")
      assert.match(closed.detail, /ECONNREFUSED/)
    }))

  it.live("a refused login is permanent and its detail never holds the credential, even when the server echoes it", () =>
    Effect.gen(function*() {
      secured.script.push({ step: "AUTH", reply: `535 5.7.8 bad password ${password} (${Buffer.from(password).toString("base64")})` })
      const refused = yield* send(at(secured)).pipe(Effect.flip)
      assert.strictEqual(refused.kind, "permanent")
      assert.notInclude(refused.detail, password)
      assert.notInclude(refused.detail, Buffer.from(password).toString("base64"))
      assert.include(refused.detail, "[redacted]")
      const wrong = yield* send({ ...at(secured), auth: Option.some({ user: "atrium", password: Redacted.make("wrong-password") }) }).pipe(Effect.flip)
      assert.deepStrictEqual([wrong.kind, wrong.detail], ["permanent", "AUTH: 535 5.7.8 Authentication credentials invalid"])
    }))

  it.live("an untrusted certificate stops the conversation before AUTH, as a TLS failure with the TLS error's code", () =>
    Effect.gen(function*() {
      const before = secured.received.length
      const untrusted = yield* send(at(secured), { ...fast, tls: {} }).pipe(Effect.flip)
      assert.strictEqual(untrusted.kind, "tls")
      assert.match(untrusted.detail, /^E[A-Z]+ \([A-Z_]+\)$/)
      assert.strictEqual(secured.received.length, before)
    }))

  it.live("an IP address is never sent as the TLS server name; a host name is", () =>
    Effect.gen(function*() {
      yield* send(at(secured, true, "127.0.0.1"))
      yield* send(at(secured, true, "localhost"))
      assert.deepStrictEqual(secured.serverNames.slice(-2), [null, "localhost"])
    }))

  it.live("a non-ASCII recipient goes out with SMTPUTF8 where the server offers it, and fails for good where it does not", () =>
    Effect.gen(function*() {
      const zoe = { ...mail, to: "zoë@bücher.example" }
      yield* send(at(unicode, false), fast, zoe)
      assert.match(unicode.mailCommands.at(-1) ?? "", /^MAIL FROM:<no-reply@atrium\.test> SMTPUTF8/)
      assert.deepStrictEqual(unicode.received.at(-1)?.to, ["zoë@xn--bcher-kva.example"])
      assert.include(unicode.received.at(-1)?.headers.to ?? "", "zoë")
      // Only a Unicode domain: its A-label needs no extension.
      yield* send(at(plain, false), fast, { ...mail, to: "zoe@bücher.example" })
      assert.deepStrictEqual(plain.received.at(-1)?.to, ["zoe@xn--bcher-kva.example"])
      const commands = plain.mailCommands.length
      const refused = yield* send(at(plain, false), fast, zoe).pipe(Effect.flip)
      assert.deepStrictEqual([refused.kind, refused.detail], ["permanent", "the recipient address is not ASCII and the server does not offer SMTPUTF8"])
      assert.strictEqual(plain.mailCommands.length, commands)
    }))
})
