import { Option, Schema } from "effect"
import { UserId } from "../shared/index.ts"

// Deliberately loose: one `@`, a dot in the domain, no spaces. Deliverability is proven by mail, not by a regex.
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** An email address as stored: trimmed, lower-case, at most 254 characters. */
export const Email = Schema.String.check(
  Schema.isMaxLength(254),
  Schema.isPattern(emailPattern),
  Schema.makeFilter((text: string) => text === text.trim().toLowerCase() || "must be trimmed and lower-case")
).annotate({ description: "Email address, normalised (trimmed, lower-case)", examples: ["ada@example.com"] }).pipe(Schema.brand("Email"))
export type Email = typeof Email.Type

/** Normalises an email the way accounts and invitations compare them (trim + lower-case); none when it is not one. */
export const normalizeEmail = (text: string): Option.Option<Email> => Email.makeOption(text.trim().toLowerCase())

/** A person's display name, 1–100 characters after trimming. */
export const UserName = Schema.String.check(Schema.isTrimmed(), Schema.isBetweenLength(1, 100)).annotate({
  description: "Display name, 1–100 characters",
  examples: ["Ada Lovelace"]
})

/** A user account; its password hash is stored beside it, never in it, so a `User` can be shown as is. */
export class User extends Schema.Class<User>("@atrium/domain/User")({
  id: UserId,
  email: Email,
  name: UserName,
  createdAt: Schema.DateTimeUtc,
  /** When the owner proved the address is theirs (a verification or password-reset link); none until then. */
  emailVerifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** Whether the address is proven to be the owner's. */
  get emailVerified(): boolean {
    return Option.isSome(this.emailVerifiedAt)
  }
}
