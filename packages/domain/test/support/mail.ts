import { MailDelivery, PasswordReset } from "@atrium/domain"
import { ScriptedMailbox } from "@atrium/domain/testing"
import { Effect, Redacted, Ref } from "effect"

/** Handles every recorded password reset request, as one pass of its worker would. */
export const handleResetRequests = Effect.gen(function*() {
  const { requestQueue } = yield* PasswordReset
  yield* Effect.forEach(yield* requestQueue.claim(100), requestQueue.step)
})

/** Handles the reset requests, then claims every due message and makes one attempt at each, as one pass of the workers would. */
export const sendDue = Effect.gen(function*() {
  yield* handleResetRequests
  const delivery = yield* MailDelivery
  const claimed = yield* delivery.claim(100)
  return yield* Effect.forEach(claimed, delivery.deliver)
})

/** Everything the in-memory mailer was handed so far. */
export const mailbox = Effect.flatMap(ScriptedMailbox, (box) => Ref.get(box.sent))

/** The one-time token in a message's link (`…#token=<token>`). */
export const tokenIn = (text: string): Redacted.Redacted<string> => {
  const match = /#token=([0-9A-Za-z_%]+)/.exec(text)
  return Redacted.make(decodeURIComponent(match?.[1] ?? ""))
}

/** The last message mailed to `to`. */
export const lastMailTo = (to: string) =>
  mailbox.pipe(Effect.map((sent) => sent.filter((mail) => mail.to === to).at(-1)))
