import { Mailer } from "@atrium/domain"
import { DateTime, Effect, Layer } from "effect"
import type { Sender } from "./mime-message.ts"
import { mimeMessage } from "./mime-message.ts"
import { defaultSmtpOptions, sendSmtp, type SmtpOptions, type SmtpServer } from "./smtp-client.ts"

/** The mailer over SMTP: one conversation per message (transactional volume needs no pool), the credential from configuration. */
export const SmtpMailer = {
  layer: (server: SmtpServer, from: Sender, options: Partial<SmtpOptions> = {}) =>
    Layer.succeed(
      Mailer,
      Mailer.of({
        send: Effect.fn("SmtpMailer.send")(function*(mail) {
          const data = mimeMessage(mail, from, yield* DateTime.now)
          yield* sendSmtp(server, { ...defaultSmtpOptions, ...options }, { from: from.address, to: mail.to, data })
        })
      })
    )
}
