import { Mailer, MailSendFailure } from "@atrium/domain"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { domainToASCII } from "node:url"
import type * as tls from "node:tls"
import MailComposer from "nodemailer/lib/mail-composer"
import SMTPConnection from "nodemailer/lib/smtp-connection"
import { failureOf } from "./smtp-failure.ts"

/** How to reach the mail server, from `ATRIUM_MAIL_URL`. */
export interface SmtpServer {
  /** A host name or an IP address (without brackets); an IP address is never sent as the TLS server name. */
  readonly host: string
  readonly port: number
  /** `smtps://`: TLS from the first byte. Otherwise STARTTLS, required unless the host is loopback. */
  readonly implicitTls: boolean
  readonly auth: Option.Option<{ readonly user: string; readonly password: Redacted.Redacted<string> }>
}

/** A sender as configured in `ATRIUM_MAIL_FROM`: `Atrium <no-reply@example.com>` or a bare address. */
export interface Sender {
  readonly name: string
  readonly address: string
}

/** Tunables of one SMTP conversation. */
export interface SmtpOptions {
  /** The name this client gives in `EHLO`. */
  readonly clientName: string
  readonly connectTimeout: Duration.Duration
  /** For the greeting and the TLS upgrade. */
  readonly commandTimeout: Duration.Duration
  /** Longest silence of the server, including the wait after the message data (servers scan it first). */
  readonly dataTimeout: Duration.Duration
  /** Extra TLS options: a private CA (`ca`) in tests; certificates are always verified. */
  readonly tls: tls.ConnectionOptions
}

/** 10 s to connect, 30 s for the greeting, 2 minutes of silence at most. */
export const defaultSmtpOptions: SmtpOptions = {
  clientName: "atrium.invalid",
  connectTimeout: Duration.seconds(10),
  commandTimeout: Duration.seconds(30),
  dataTimeout: Duration.minutes(2),
  tls: {}
}

const loopback = (host: string) => host === "localhost" || host === "::1" || /^127\./.test(host)

// A Unicode domain travels as its A-label, so only a non-ASCII local part needs the server's SMTPUTF8 (RFC 6531).
const envelopeAddress = (address: string) => {
  const at = address.lastIndexOf("@")
  const domain = domainToASCII(address.slice(at + 1))
  return domain.length > 0 ? `${address.slice(0, at)}@${domain}` : address
}

const advertises = (ehlo: string | false, extension: string) => ehlo !== false && new RegExp(`^\\d{3}[ -]${extension}\\b`, "im").test(ehlo)

/**
 * The mailer over SMTP through nodemailer: one conversation per message (transactional volume needs no pool), STARTTLS
 * required off loopback, SMTPUTF8 for a non-ASCII recipient only when the server offers it (otherwise a permanent
 * failure, as RFC 6531 asks), the credential from configuration and never in a failure's detail.
 */
export const SmtpMailer = {
  layer: (server: SmtpServer, from: Sender, overrides: Partial<SmtpOptions> = {}) => {
    const options = { ...defaultSmtpOptions, ...overrides }
    const password = Option.map(server.auth, (auth) => Redacted.value(auth.password))
    // The credential in the forms it crosses the wire, to cut out of any reply the server echoes.
    const secrets = Option.match(server.auth, { onNone: () => [], onSome: ({ user }) => Option.toArray(password).flatMap((pass) => [pass, `\u0000${user}\u0000${pass}`]) })
    const connect = () =>
      new SMTPConnection({
        host: server.host,
        port: server.port,
        secure: server.implicitTls,
        // Fail closed: without TLS the credential and the one-time links would cross the network in the clear.
        requireTLS: !server.implicitTls && !loopback(server.host),
        name: options.clientName,
        connectionTimeout: Duration.toMillis(options.connectTimeout),
        greetingTimeout: Duration.toMillis(options.commandTimeout),
        socketTimeout: Duration.toMillis(options.dataTimeout),
        tls: options.tls,
        logger: false
      })

    // One conversation: connect (STARTTLS included), check SMTPUTF8, AUTH, send, QUIT; the first error or close ends it.
    const converse = (to: string, message: Buffer) =>
      Effect.callback<void, Error>((resume) => {
        const connection = connect()
        let settled = false
        const finish = (error: Error | null | undefined) => {
          if (settled) return
          settled = true
          if (error !== null && error !== undefined) connection.close()
          resume(error === null || error === undefined ? Effect.void : Effect.fail(error))
        }
        // Kept for the connection's life: an error after the outcome (e.g. during QUIT) must find a listener, not crash.
        connection.on("error", finish)
        connection.on("end", () => finish(Object.assign(new Error("closed"), { code: "ECONNECTION" })))
        const send = () =>
          connection.send({ from: from.address, to: [to] }, message, (error) => {
            if (error !== null) return finish(error)
            connection.quit()
            finish(null)
          })
        connection.connect((error) => {
          if (error !== undefined) return finish(error)
          // After connecting, the last reply is the (post-STARTTLS) EHLO: its extensions.
          if (/[^\x00-\x7f]/.test(to) && !advertises(connection.lastServerResponse, "SMTPUTF8")) {
            return finish(new MailSendFailure({ kind: "permanent", detail: "the recipient address is not ASCII and the server does not offer SMTPUTF8" }))
          }
          if (Option.isNone(server.auth) || Option.isNone(password)) return send()
          connection.login({ user: server.auth.value.user, pass: password.value }, (error) => (error === null ? send() : finish(error)))
        })
        return Effect.sync(() => connection.close())
      }).pipe(Effect.mapError((error) => error instanceof MailSendFailure ? error : failureOf(error, secrets)))

    return Layer.succeed(
      Mailer,
      Mailer.of({
        send: Effect.fn("SmtpMailer.send")(function*(mail) {
          const domain = from.address.split("@")[1] ?? "atrium.invalid"
          const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          const message = yield* Effect.promise(() =>
            new MailComposer({
              from: from.name.length > 0 ? { name: from.name, address: from.address } : from.address,
              to: mail.to,
              subject: mail.subject,
              text: mail.text,
              html: mail.html,
              // The message id is stable across retries, so a receiver can drop a duplicate of an at-least-once send.
              messageId: `<${mail.id}@${domain}>`,
              date: new Date(now),
              headers: { "Auto-Submitted": "auto-generated" },
              // Base64 bodies never exceed line limits or need dot-stuffing.
              textEncoding: "base64",
              // Nothing may make the composer read a file or fetch a URL.
              disableFileAccess: true,
              disableUrlAccess: true
            }).compile().build()
          )
          yield* converse(envelopeAddress(mail.to), message)
        })
      })
    )
  }
}
