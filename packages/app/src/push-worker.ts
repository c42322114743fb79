import { PushSender, PushService, runWorker } from "@atrium/domain"
import { Effect, Layer } from "effect"

/**
 * Sends the push outbox and reads its receipts in this process when it has push configured; leased claims share the
 * work among such processes. Without push it leaves the outbox alone: every process queues messages with its changes
 * (the CLI too), and a process with the access token sends them.
 */
export const PushWorker = {
  layer: Layer.effectDiscard(Effect.gen(function*() {
    if (!(yield* PushService).enabled) return
    const sender = yield* PushSender
    // A handful of batches in flight: each is one request of up to 100 messages to the push service.
    yield* runWorker(sender.sendQueue, { concurrency: 4, idlePoll: "250 millis" })
    yield* runWorker(sender.receiptQueue, { concurrency: 2, idlePoll: "5 seconds" })
  }))
}
