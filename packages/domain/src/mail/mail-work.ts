import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { MailDelivery } from "./mail-delivery.ts"

/** The mail outbox: one item, one attempt; mail servers throttle, so a few conversations at once is plenty. */
export const mailWork: Effect.Effect<ReadonlyArray<Work>, never, MailDelivery> = Effect.map(MailDelivery, (delivery) => [
  declareWork({ name: "mail", claim: delivery.claim, step: delivery.deliver, onDefect: delivery.recordDefect }, { concurrency: 8, idlePoll: "250 millis" }, "mail_messages")
])
