import { MailSendFailure } from "@atrium/domain"

// Node's TLS and certificate error codes: the server's certificate or handshake, not a passing network fault.
const tlsCodes = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_|ERR_OSSL_)/

const field = (error: object, name: string): unknown => (name in error ? Reflect.get(error, name) : undefined)
const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined)

/**
 * The failure an error of nodemailer means. A 5xx reply (except 503) is permanent; a TLS failure (an untrusted
 * certificate, a failed handshake, no STARTTLS where it is required) is `tls`, retried only a few times; anything
 * else (4xx, timeouts, dropped connections) temporary. The detail is the step and the server's reply or the error's
 * codes, never the error's free text, and `secrets` (the credential, in its wire forms too) are cut out of it.
 */
export const failureOf = (error: Error, secrets: ReadonlyArray<string>): MailSendFailure => {
  const code = text(field(error, "code")) ?? "error"
  const original = text(field(error, "originalCode")) ?? text(field(error, "reason"))
  const command = text(field(error, "command"))
  const response = text(field(error, "response"))
  const responseCode = field(error, "responseCode")
  // "CONN" and "API" are nodemailer's names for no command at all.
  const step = command === undefined || command === "CONN" || command === "API" ? "" : `${/^AUTH\b/i.test(command) ? "AUTH" : command}: `
  const raw = response !== undefined
    ? `${step}${response}`
    : `${step}${code}${original !== undefined && original !== code ? ` (${original})` : ""}${code === "ETIMEDOUT" ? ": timed out waiting for the server" : ""}`
  const wire = secrets.flatMap((secret) => [secret, Buffer.from(secret).toString("base64"), encodeURIComponent(secret)]).filter((s) => s.length >= 3)
  const detail = wire.reduce((out, secret) => out.split(secret).join("[redacted]"), raw).slice(0, 300)
  const tlsFailure = code === "ETLS" || tlsCodes.test(original ?? "") || tlsCodes.test(code)
  if (typeof responseCode === "number" && responseCode >= 500 && responseCode !== 503) return new MailSendFailure({ kind: "permanent", detail })
  if (typeof responseCode !== "number" && (code === "EENVELOPE" || code === "EAUTH" || code === "ENOAUTH")) {
    return new MailSendFailure({ kind: "permanent", detail })
  }
  return new MailSendFailure({ kind: tlsFailure ? "tls" : "temporary", detail })
}
