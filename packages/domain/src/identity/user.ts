import { Option, Schema } from "effect"
import { isSafeText, UserId } from "../shared/index.ts"
import { Email } from "./email.ts"

/** A person's display name, 1–100 characters after trimming. */
export const UserName = Schema.String.check(isSafeText(), Schema.isTrimmed(), Schema.isBetweenLength(1, 100)).annotate({
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
