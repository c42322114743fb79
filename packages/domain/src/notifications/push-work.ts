import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { PushSender } from "./push-sender.ts"
import { PushService } from "./push-service.ts"

/**
 * The push outbox and its receipts, in a process that has push configured; without it the outbox is left alone (every
 * process queues messages with its changes, the CLI too, and a process with the access token sends them). A handful of
 * batches in flight: each is one request of up to 100 messages to the push service.
 */
export const pushWork: Effect.Effect<ReadonlyArray<Work>, never, PushSender> = Effect.gen(function*() {
  if (!(yield* PushService).enabled) return []
  const sender = yield* PushSender
  return [
    declareWork(sender.sendQueue, { concurrency: 4, idlePoll: "250 millis" }, "push_messages"),
    declareWork(sender.receiptQueue, { concurrency: 2, idlePoll: "5 seconds" })
  ]
})
