import { type Mailer } from "@atrium/domain"
import { Effect, Layer } from "effect"
import { LogMailer } from "./log-mailer.ts"
import { type MailEnvironment, mailTransport } from "./mail-settings.ts"
import { SmtpMailer } from "@atrium/adapters-smtp"

/** The configured mailer; a configuration that cannot work stops the server at start, naming the variable, not its value. */
export const mailerLayer = (env: MailEnvironment): Layer.Layer<Mailer> =>
  Layer.unwrap(Effect.gen(function*() {
    const transport = mailTransport(env)
    if (typeof transport === "string") return yield* Effect.die(new Error(transport))
    if (transport._tag === "Log") {
      if (!transport.showLinks) yield* Effect.logWarning("ATRIUM_MAIL_URL is not set: mail is written to the log without its links, not sent")
      return LogMailer.layer({ showLinks: transport.showLinks })
    }
    return SmtpMailer.layer(transport.server, transport.from)
  }))
