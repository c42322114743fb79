import { MailMessage } from "@atrium/domain"
import { Schema } from "effect"

/** The `mail_messages` row as the driver returns it (`content` as parsed `jsonb`, `timestamptz` as `Date`). */
export const MailMessageRow = Schema.Struct({
  ...MailMessage.fields,
  linkExpiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate,
  sentAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(Schema.encodeKeys({
  dedupeKey: "dedupe_key",
  to: "recipient",
  sealedToken: "sealed_token",
  linkExpiresAt: "link_expires_at",
  lastError: "last_error",
  nextAttemptAt: "next_attempt_at",
  createdAt: "created_at",
  updatedAt: "updated_at",
  sentAt: "sent_at"
}))
