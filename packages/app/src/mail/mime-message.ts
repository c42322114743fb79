import type { OutgoingMail } from "@atrium/domain"
import { DateTime } from "effect"

/** A sender as configured in `ATRIUM_MAIL_FROM`: `Atrium <no-reply@example.com>` or a bare address. */
export interface Sender {
  readonly name: string
  readonly address: string
}

const addressPattern = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/

/** Parses `ATRIUM_MAIL_FROM`; none when it is not one address (with an optional display name). */
export const parseSender = (text: string): Sender | undefined => {
  const trimmed = text.trim()
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed)
  const name = (named?.[1] ?? "").replace(/^"|"$/g, "").trim()
  const address = (named?.[2] ?? trimmed).trim()
  if (!addressPattern.test(address) || /[\r\n]/.test(name)) return undefined
  return { name, address }
}

// RFC 2047 encoded-words for anything outside printable ASCII, so a header never carries raw 8-bit text or a line break.
const encodeWord = (text: string) => {
  const oneLine = text.replace(/[\r\n]+/g, " ")
  return /^[\x20-\x7e]*$/.test(oneLine) ? oneLine : `=?UTF-8?B?${Buffer.from(oneLine, "utf8").toString("base64")}?=`
}

const displayName = (name: string) => {
  const encoded = encodeWord(name)
  return encoded.startsWith("=?") ? encoded : `"${encoded.replace(/["\\]/g, "\\$&")}"`
}

// 76-character base64 lines (RFC 2045): bodies never exceed line limits or need dot-stuffing.
const base64Lines = (text: string) => (Buffer.from(text, "utf8").toString("base64").match(/.{1,76}/g) ?? []).join("\r\n")

const rfc5322Date = (now: DateTime.Utc) => new Date(DateTime.toEpochMillis(now)).toUTCString().replace("GMT", "+0000")

/** The full message text: headers, then a multipart/alternative body with the plain text and the HTML. */
export const mimeMessage = (mail: OutgoingMail, from: Sender, now: DateTime.Utc): string => {
  const domain = from.address.split("@")[1] ?? "atrium.invalid"
  const boundary = `atrium-${mail.id}`
  const headers = [
    `From: ${from.name.length > 0 ? `${displayName(from.name)} <${from.address}>` : from.address}`,
    `To: ${mail.to}`,
    `Subject: ${encodeWord(mail.subject)}`,
    `Date: ${rfc5322Date(now)}`,
    // The message id is stable across retries, so a receiver can drop a duplicate of an at-least-once send.
    `Message-ID: <${mail.id}@${domain}>`,
    "Auto-Submitted: auto-generated",
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="${boundary}"`
  ]
  const part = (type: string, body: string) => [`--${boundary}`, `Content-Type: ${type}; charset=utf-8`, "Content-Transfer-Encoding: base64", "", base64Lines(body)]
  return [...headers, "", ...part("text/plain", mail.text), ...part("text/html", mail.html), `--${boundary}--`, ""].join("\r\n")
}
