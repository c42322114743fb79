import { Schema } from "effect"

/** An account with this (normalised) email already exists. */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", {
  code: Schema.tag("email_taken")
}, { httpApiStatus: 409 }) {}

/** Sign-in refused: one answer for an unknown email and a wrong password, so neither can be told apart. */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {
  code: Schema.tag("invalid_credentials")
}, { httpApiStatus: 401 }) {}
