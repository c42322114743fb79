import { DateTime, Duration, Option, Schema } from "effect"
import { AccountTokenId, UserId } from "../shared/index.ts"
import { Email } from "./email.ts"

/** What a one-time account token is for. */
export const AccountTokenPurpose = Schema.Literals(["email_verification", "password_reset"])
export type AccountTokenPurpose = typeof AccountTokenPurpose.Type

/** How long each kind of link works: a day to verify an address, an hour to reset a password. */
export const accountTokenTtl: { readonly [P in AccountTokenPurpose]: Duration.Duration } = {
  email_verification: Duration.hours(24),
  password_reset: Duration.hours(1)
}

/** A one-time token mailed to `email`; only its digest is stored, and it is spent by its first use. */
export class AccountToken extends Schema.Class<AccountToken>("@atrium/domain/AccountToken")({
  id: AccountTokenId,
  userId: UserId,
  purpose: AccountTokenPurpose,
  /** The address the link was sent to: verifying proves this address, not whatever the account holds later. */
  email: Email,
  digest: Schema.String,
  createdAt: Schema.DateTimeUtc,
  expiresAt: Schema.DateTimeUtc,
  usedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** Usable at `now`: not spent, not expired. */
  isUsableAt(now: DateTime.Utc): boolean {
    return Option.isNone(this.usedAt) && DateTime.isLessThan(now, this.expiresAt)
  }
}
