import { MailMessage } from "@atrium/domain"
import { Schema } from "effect"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"

/** The `mail_messages` row as the driver returns it (`content` as parsed `jsonb`, `timestamptz` as `Date`; `to`, an SQL keyword, is `recipient`). */
export const MailMessageRow = Schema.Struct({
  ...MailMessage.fields,
  linkExpiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate,
  sentAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns({ except: { to: "recipient" } }))
