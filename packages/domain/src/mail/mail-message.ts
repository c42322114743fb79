import { DateTime, type Duration, Option, Schema } from "effect"
import { MailMessageId } from "../shared/index.ts"

// One address, no header-breaking characters: it goes into `RCPT TO` and the `To:` header verbatim.
const addressPattern = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/

/** A recipient address as the mail area sends to it (the identity area normalises it first). */
export const MailAddress = Schema.String.check(Schema.isBetweenLength(3, 254), Schema.isPattern(addressPattern)).annotate({
  description: "Recipient address",
  examples: ["ada@example.com"]
})
export type MailAddress = typeof MailAddress.Type

// Names shown in a message: one line (they may land in a subject header), bounded.
const DisplayText = Schema.String.check(Schema.isBetweenLength(0, 200))

/** Email verification: the one-time link proves the address belongs to the account. */
export const VerificationContent = Schema.Struct({
  template: Schema.Literal("email_verification"),
  name: DisplayText
})

/** Password reset: the one-time link sets a new password. */
export const PasswordResetContent = Schema.Struct({
  template: Schema.Literal("password_reset"),
  name: DisplayText
})

/** Invitation: the link carries the invitation token to accept. */
export const InvitationContent = Schema.Struct({
  template: Schema.Literal("invitation"),
  workspaceName: DisplayText,
  inviterName: DisplayText,
  role: Schema.String.check(Schema.isBetweenLength(1, 20))
})

/** What a message says, by template; never a secret (the one-time token travels sealed beside it). */
export const MailContent = Schema.Union([VerificationContent, PasswordResetContent, InvitationContent])
export type MailContent = typeof MailContent.Type

/** The templates Atrium sends. */
export type MailTemplate = MailContent["template"]

/** Where a message stands: waiting for an attempt, accepted by the mail server, or given up on. */
export const MailStatus = Schema.Literals(["pending", "sent", "failed"]).annotate({
  description: "pending: an attempt is due or under way; sent: the mail server accepted it; failed: a permanent refusal or retries exhausted"
})
export type MailStatus = typeof MailStatus.Type

/** Most characters of a mail server's reply kept as `lastError`. */
export const maxLastError = 500

/**
 * One outgoing message of the outbox, written in the transaction of the change that asked for it. `dedupeKey` names
 * that change (e.g. `password_reset:tok_…`), so the same change never yields two messages. The one-time token is
 * kept only sealed (`sealedToken`, under the server's secret key) and erased once the message is sent or failed.
 */
export class MailMessage extends Schema.Class<MailMessage>("@atrium/domain/MailMessage")({
  id: MailMessageId,
  dedupeKey: Schema.String.check(Schema.isBetweenLength(1, 200)),
  to: MailAddress,
  content: MailContent,
  sealedToken: Schema.OptionFromNullOr(Schema.String),
  /** When the link inside stops working; a message still unsent by then is failed rather than sent dead. */
  linkExpiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  status: MailStatus,
  attempts: Schema.Int,
  lastError: Schema.OptionFromNullOr(Schema.String),
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc,
  sentAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** The template it renders. */
  get template(): MailTemplate {
    return this.content.template
  }
}

/** How a send attempt ended, as the retry policy sees it. */
export type SendOutcome =
  | { readonly _tag: "Sent" }
  | { readonly _tag: "Temporary"; readonly detail: string }
  | { readonly _tag: "Permanent"; readonly detail: string }

/** The message after an attempt: sent, retried after `delay`, or failed for good; the sealed token goes when it ends. */
export const afterAttempt = (
  message: MailMessage,
  outcome: SendOutcome,
  now: DateTime.Utc,
  delay: Option.Option<Duration.Duration>
): MailMessage => {
  const attempts = message.attempts + 1
  const finished = {
    sealedToken: Option.none<string>(),
    nextAttemptAt: Option.none<DateTime.Utc>(),
    attempts,
    updatedAt: now
  }
  switch (outcome._tag) {
    case "Sent":
      return new MailMessage({ ...message, ...finished, status: "sent", lastError: Option.none(), sentAt: Option.some(now) })
    case "Permanent":
      return new MailMessage({ ...message, ...finished, status: "failed", lastError: Option.some(outcome.detail.slice(0, maxLastError)) })
    case "Temporary":
      return Option.match(delay, {
        onNone: () => new MailMessage({ ...message, ...finished, status: "failed", lastError: Option.some(outcome.detail.slice(0, maxLastError)) }),
        onSome: (wait) =>
          new MailMessage({
            ...message,
            attempts,
            updatedAt: now,
            status: "pending",
            lastError: Option.some(outcome.detail.slice(0, maxLastError)),
            nextAttemptAt: Option.some(DateTime.addDuration(now, wait))
          })
      })
  }
}
