import { Option, Redacted } from "effect"
import addressparser from "nodemailer/lib/addressparser"
import type { Sender, SmtpServer } from "@atrium/adapters-smtp"

/** How the server mails: to its own log (the embedded default), or through an SMTP server. */
export type MailTransport =
  | { readonly _tag: "Log"; readonly showLinks: boolean }
  | { readonly _tag: "Smtp"; readonly server: SmtpServer; readonly from: Sender }

/** What the environment says about mail (`ATRIUM_MAIL_URL`, `ATRIUM_MAIL_FROM`), and whether the database is embedded. */
export interface MailEnvironment {
  readonly url: Option.Option<Redacted.Redacted<string>>
  readonly from: Option.Option<string>
  readonly embedded: boolean
}

/** A configuration that cannot work; the text never repeats the URL (it holds the credential). */
export type MailSettingsError = string

const addressPattern = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/

/** Parses `ATRIUM_MAIL_FROM`; none when it is not one address (with an optional display name). */
export const parseSender = (text: string): Sender | undefined => {
  const parsed = addressparser(text, { flatten: true })
  const [only] = parsed
  if (parsed.length !== 1 || only === undefined || !addressPattern.test(only.address) || /[\r\n]/.test(only.name)) return undefined
  return { name: only.name, address: only.address }
}

const decode = (text: string) => {
  const decoded = Option.liftThrowable(decodeURIComponent)(text)
  return Option.getOrElse(decoded, () => text)
}

/**
 * The transport the environment asks for. No `ATRIUM_MAIL_URL`: the log, with links only on the embedded default (a
 * shared server's log is no place for password-reset links). `log:` asks for the log with links explicitly.
 * `smtp://user:pass@host:587` (STARTTLS) or `smtps://…:465` (TLS) need `ATRIUM_MAIL_FROM`.
 */
export const mailTransport = (env: MailEnvironment): MailTransport | MailSettingsError => {
  if (Option.isNone(env.url)) return { _tag: "Log", showLinks: env.embedded }
  const text = Redacted.value(env.url.value)
  if (text === "log:" || text === "log://") return { _tag: "Log", showLinks: true }
  if (!URL.canParse(text)) return "ATRIUM_MAIL_URL is not a URL (expected smtp://user:pass@host:587, smtps://…:465 or log:)"
  const url = new URL(text)
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") return "ATRIUM_MAIL_URL must start with smtp://, smtps:// or be log:"
  if (url.hostname.length === 0) return "ATRIUM_MAIL_URL names no host"
  const implicitTls = url.protocol === "smtps:"
  const port = url.port.length > 0 ? Number(url.port) : implicitTls ? 465 : 587
  const from = Option.flatMap(env.from, (value) => Option.fromNullishOr(parseSender(value)))
  if (Option.isNone(from)) return "ATRIUM_MAIL_FROM must be an address such as 'Atrium <no-reply@example.com>' when ATRIUM_MAIL_URL is set"
  const user = decode(url.username)
  const auth = user.length > 0 ? Option.some({ user, password: Redacted.make(decode(url.password), { label: "ATRIUM_MAIL_URL password" }) }) : Option.none()
  // An IPv6 literal comes bracketed from the URL; without brackets it is recognised as an IP (never a TLS server name).
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
  return { _tag: "Smtp", server: { host, port, implicitTls, auth }, from: from.value }
}
