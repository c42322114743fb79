import { Context, type Effect, Schema } from "effect"
import type { MailMessageId } from "../shared/index.ts"
import type { MailAddress } from "./mail-message.ts"
import type { RenderedMail } from "./mail-templates.ts"

/** A rendered message ready for the wire; the adapter adds `From`, `Date` and the MIME structure. */
export interface OutgoingMail extends RenderedMail {
  /** Stable across retries, so a receiver can drop a duplicate (`Message-ID: <id@sender-domain>`). */
  readonly id: MailMessageId
  readonly to: MailAddress
}

/**
 * A send that did not go through. `temporary`: a 4xx reply, a timeout or a dropped connection (retried with backoff);
 * `tls`: the TLS handshake or certificate failed (retried only a few times: it rarely mends itself); `permanent`: a
 * 5xx reply (recorded, never retried). `detail` is the server's reply or the failure's kind, never a credential.
 */
export class MailSendFailure extends Schema.TaggedError<MailSendFailure>()("MailSendFailure", {
  kind: Schema.Literals(["temporary", "tls", "permanent"]),
  detail: Schema.String
}) {}

/** Port: hands one message to the mail system (SMTP in production, the server log on the embedded default). */
export class Mailer extends Context.Service<Mailer, {
  readonly send: (mail: OutgoingMail) => Effect.Effect<void, MailSendFailure>
}>()("@atrium/domain/Mailer") {}
