import { Schema } from "effect"

/** An account with this (normalised) email already exists. */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", {
  code: Schema.tag("email_taken")
}, { httpApiStatus: 409 }) {}

/** Sign-in refused: one answer for an unknown email and a wrong password, so neither can be told apart. */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {
  code: Schema.tag("invalid_credentials")
}, { httpApiStatus: 401 }) {}

/** A verification or password-reset token that is unknown, already used or expired: one answer for all three. */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  code: Schema.tag("invalid_token"),
  detail: Schema.String
}, { httpApiStatus: 400 }) {}

/** The account's address is already verified; there is nothing to resend. */
export class EmailAlreadyVerified extends Schema.TaggedError<EmailAlreadyVerified>()("EmailAlreadyVerified", {
  code: Schema.tag("email_already_verified")
}, { httpApiStatus: 409 }) {}
