import type { MailSendFailure } from "@atrium/domain"
import { Duration, Effect, Option, Redacted } from "effect"
import type * as tls from "node:tls"
import { connect } from "./smtp-connection.ts"
import { permanent, refusal, type SmtpReply, temporary } from "./smtp-reply.ts"

/** How to reach the mail server, from `ATRIUM_MAIL_URL`. */
export interface SmtpServer {
  readonly host: string
  readonly port: number
  /** `smtps://`: TLS from the first byte. Otherwise STARTTLS, required unless the host is loopback. */
  readonly implicitTls: boolean
  readonly auth: Option.Option<{ readonly user: string; readonly password: Redacted.Redacted<string> }>
}

/** Tunables of one SMTP conversation. */
export interface SmtpOptions {
  /** The name this client gives in `EHLO`. */
  readonly clientName: string
  readonly connectTimeout: Duration.Duration
  /** For each reply, except the one after the message data. */
  readonly commandTimeout: Duration.Duration
  /** For the reply after the message data (servers scan it first). */
  readonly dataTimeout: Duration.Duration
  /** Extra TLS options: a private CA (`ca`) in tests; certificates are always verified. */
  readonly tls: tls.ConnectionOptions
}

/** 10 s to connect, 30 s per command, 2 minutes after the data. */
export const defaultSmtpOptions: SmtpOptions = {
  clientName: "atrium.invalid",
  connectTimeout: Duration.seconds(10),
  commandTimeout: Duration.seconds(30),
  dataTimeout: Duration.minutes(2),
  tls: {}
}

/** One message on the wire: the envelope and the full RFC 5322 text (CRLF line ends). */
export interface SmtpEnvelope {
  readonly from: string
  readonly to: string
  readonly data: string
}

const loopback = (host: string) => host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host)

/** Lines starting with "." get another (RFC 5321 §4.5.2), and the data ends with CRLF "." CRLF. */
export const dotStuff = (data: string): string => {
  const normalized = data.replace(/\r?\n/g, "\r\n")
  const stuffed = normalized.replace(/(^|\r\n)\./g, "$1..")
  return `${stuffed.endsWith("\r\n") ? stuffed : `${stuffed}\r\n`}.\r\n`
}

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64")

/** The extensions an `EHLO` reply advertises, upper-cased: `STARTTLS`, `AUTH PLAIN LOGIN`, `SIZE 1000`… */
const extensionsOf = (reply: SmtpReply): ReadonlyArray<string> => reply.lines.slice(1).map((line) => line.trim().toUpperCase())

const authMechanisms = (extensions: ReadonlyArray<string>): ReadonlyArray<string> =>
  extensions.flatMap((line) => (/^AUTH[ =]/.test(line) ? line.slice(5).split(/\s+/) : []))

/**
 * Sends one message in one SMTP conversation: greeting, EHLO, STARTTLS (and EHLO again), AUTH PLAIN or LOGIN, MAIL
 * FROM, RCPT TO, DATA with dot-stuffing, QUIT. Every failure is classified: 5xx permanent, 4xx, timeouts and dropped
 * connections temporary. The credential goes on the wire only inside TLS (or to a loopback server) and never into a
 * failure's detail, even if the server echoes it.
 */
export const sendSmtp = (server: SmtpServer, options: SmtpOptions, envelope: SmtpEnvelope): Effect.Effect<void, MailSendFailure> =>
  Effect.scoped(Effect.gen(function*() {
    const secrets = Option.match(server.auth, {
      onNone: () => [],
      onSome: ({ password, user }) => {
        const pass = Redacted.value(password)
        return [pass, base64(pass), base64(`\u0000${user}\u0000${pass}`), encodeURIComponent(pass)].filter((s) => s.length >= 3)
      }
    })
    const scrub = (text: string) => secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text)

    const connection = yield* connect({
      host: server.host,
      port: server.port,
      implicitTls: server.implicitTls,
      tls: options.tls,
      connectTimeout: options.connectTimeout
    })
    const expect = Effect.fnUntraced(function*(step: string, codes: ReadonlyArray<number>, timeout: Duration.Duration = options.commandTimeout) {
      const reply = yield* connection.read(timeout)
      if (!codes.includes(reply.code)) return yield* refusal(step, reply, scrub)
      return reply
    })
    const command = (step: string, line: string, codes: ReadonlyArray<number>) =>
      connection.write(`${line}\r\n`).pipe(Effect.andThen(expect(step, codes)))

    yield* expect("greeting", [220])
    let extensions = extensionsOf(yield* command("EHLO", `EHLO ${options.clientName}`, [250]))

    if (!connection.encrypted()) {
      if (extensions.includes("STARTTLS")) {
        yield* command("STARTTLS", "STARTTLS", [220])
        yield* connection.upgrade
        extensions = extensionsOf(yield* command("EHLO", `EHLO ${options.clientName}`, [250]))
      } else if (!loopback(server.host)) {
        // Fail closed: without TLS the credential and the one-time links would cross the network in the clear.
        return yield* temporary("the server does not offer STARTTLS; refusing to send without TLS")
      }
    }

    if (Option.isSome(server.auth)) {
      const { password, user } = server.auth.value
      const mechanisms = authMechanisms(extensions)
      if (mechanisms.includes("PLAIN")) {
        yield* command("AUTH", `AUTH PLAIN ${base64(`\u0000${user}\u0000${Redacted.value(password)}`)}`, [235])
      } else if (mechanisms.includes("LOGIN")) {
        yield* command("AUTH", "AUTH LOGIN", [334])
        yield* command("AUTH", base64(user), [334])
        yield* command("AUTH", base64(Redacted.value(password)), [235])
      } else {
        return yield* permanent("the server offers neither AUTH PLAIN nor AUTH LOGIN")
      }
    }

    yield* command("MAIL FROM", `MAIL FROM:<${envelope.from}>`, [250])
    yield* command("RCPT TO", `RCPT TO:<${envelope.to}>`, [250, 251])
    yield* command("DATA", "DATA", [354])
    yield* connection.write(dotStuff(envelope.data))
    yield* expect("message data", [250], options.dataTimeout)
    // The message is accepted; a failing goodbye changes nothing.
    yield* command("QUIT", "QUIT", [221]).pipe(Effect.ignore)
  }))
