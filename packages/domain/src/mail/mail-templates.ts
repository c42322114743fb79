import { DateTime, Option } from "effect"
import type { MailContent } from "./mail-message.ts"

/** A message in both forms; the only secret it may carry is its one-time link. */
export interface RenderedMail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

// The page each template's link opens; the token rides in the fragment, which browsers never send to a server or a Referer.
const linkPaths: { readonly [T in MailContent["template"]]: string } = {
  email_verification: "/verify-email",
  password_reset: "/reset-password",
  invitation: "/accept-invitation"
}

/** The one-time link of a template: `<publicUrl><page>#token=<token>`. */
export const linkFor = (publicUrl: string, template: MailContent["template"], token: string): string =>
  `${publicUrl.replace(/\/+$/, "")}${linkPaths[template]}#token=${encodeURIComponent(token)}`

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : "&#39;")

// Display names come from users; one line each so nothing they type can shape a header or the layout.
const oneLine = (text: string) => text.replace(/[\r\n\t\u2028\u2029]+/g, " ").trim()

const greeting = (name: string) => (oneLine(name).length > 0 ? `Hello ${oneLine(name)},` : "Hello,")

const expiry = (expiresAt: Option.Option<DateTime.Utc>) =>
  Option.match(expiresAt, { onNone: () => "", onSome: (at) => `The link works once and expires at ${DateTime.formatIso(at)}.` })

interface Body {
  readonly subject: string
  readonly lines: ReadonlyArray<string>
  readonly action: string
  readonly closing: ReadonlyArray<string>
}

const bodyOf = (content: MailContent): Body => {
  switch (content.template) {
    case "email_verification":
      return {
        subject: "Confirm your email address",
        lines: [greeting(content.name), "Please confirm that this address belongs to your Atrium account."],
        action: "Confirm my email address",
        closing: ["If you did not create an account, you can ignore this message."]
      }
    case "password_reset":
      return {
        subject: "Reset your password",
        lines: [greeting(content.name), "Someone (hopefully you) asked to reset the password of your Atrium account."],
        action: "Choose a new password",
        closing: ["Setting a new password signs you out everywhere. If you did not ask for this, ignore this message: your password stays as it is."]
      }
    case "invitation": {
      const inviter = oneLine(content.inviterName)
      const workspace = oneLine(content.workspaceName)
      return {
        subject: `${inviter.length > 0 ? inviter : "Someone"} invited you to ${workspace} on Atrium`,
        lines: [
          "Hello,",
          `${inviter.length > 0 ? inviter : "A member"} invited you to join the workspace "${workspace}" as ${oneLine(content.role)}.`
        ],
        action: "Accept the invitation",
        closing: ["Sign in (or create an account) with this address, then open the link."]
      }
    }
  }
}

/** Renders a message in plain text and HTML around its one-time link. */
export const renderMail = (content: MailContent, link: string, linkExpiresAt: Option.Option<DateTime.Utc>): RenderedMail => {
  const body = bodyOf(content)
  const expires = expiry(linkExpiresAt)
  const text = [...body.lines, "", `${body.action}:`, link, "", ...(expires.length > 0 ? [expires, ""] : []), ...body.closing, "", "— Atrium", ""]
    .join("\r\n")
  const paragraphs = [...body.lines, ...(expires.length > 0 ? [expires] : []), ...body.closing]
  const html = [
    "<!doctype html>",
    `<html><head><meta charset="utf-8"><title>${escapeHtml(body.subject)}</title></head>`,
    "<body style=\"font-family: system-ui, sans-serif; line-height: 1.5\">",
    ...body.lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p><a href="${escapeHtml(link)}">${escapeHtml(body.action)}</a></p>`,
    `<p style="font-size: 0.9em">Or paste this link into your browser: ${escapeHtml(link)}</p>`,
    ...paragraphs.slice(body.lines.length).map((line) => `<p>${escapeHtml(line)}</p>`),
    "<p>— Atrium</p>",
    "</body></html>",
    ""
  ].join("\r\n")
  return { subject: oneLine(body.subject), text, html }
}
