import { Schema } from "effect"
import { Email } from "./email.ts"

/**
 * A password reset asked for an address, waiting for the worker that looks the account up. Recording one is the whole
 * work of the request for every address, known or not, so its timing tells nothing; the row goes once handled.
 */
export class PasswordResetRequest extends Schema.Class<PasswordResetRequest>("@atrium/domain/PasswordResetRequest")({
  id: Schema.String.check(Schema.isStartingWith("prr_")),
  email: Email,
  requestedAt: Schema.DateTimeUtc
}) {}
