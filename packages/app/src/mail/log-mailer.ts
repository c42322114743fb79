import { Mailer } from "@atrium/domain"
import { Effect, Layer } from "effect"

const tokenInLink = /#token=[^\s"<]+/g

/**
 * The mailer of the embedded default: writes each message (recipient, subject, plain text with its link) to the
 * server log instead of sending it, so `npm start` works offline and a newcomer can click the link. It holds no
 * credential. With `showLinks: false` (a real database but no mail server) the one-time token is left out.
 */
export const LogMailer = {
  layer: (options: { readonly showLinks: boolean }) =>
    Layer.succeed(
      Mailer,
      Mailer.of({
        send: (mail) =>
          Effect.logInfo(`mail (not sent: log adapter) to ${mail.to}: ${mail.subject}`).pipe(
            Effect.annotateLogs({
              mail: "log",
              messageId: mail.id,
              to: mail.to,
              subject: mail.subject,
              text: options.showLinks ? mail.text : mail.text.replace(tokenInLink, "#token=[hidden: set ATRIUM_MAIL_URL to send mail]")
            })
          )
      })
    )
}
