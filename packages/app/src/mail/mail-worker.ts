import { mailQueue, PasswordReset, runWorker, type WorkerOptions } from "@atrium/domain"
import { Effect, Layer } from "effect"

/**
 * The mail sender on the common worker loop (leased claims shared by every process, one attempt per step), and the
 * password reset requests that become mail.
 */
export const MailWorker = {
  layer: (options: Partial<WorkerOptions> = {}) =>
    Layer.effectDiscard(Effect.gen(function*() {
      const queue = yield* mailQueue
      // Mail servers throttle; a few conversations at once is plenty for transactional mail.
      yield* runWorker(queue, { concurrency: 8, idlePoll: "250 millis", ...options })
      yield* runWorker((yield* PasswordReset).requestQueue, { concurrency: 4, idlePoll: "250 millis", ...options })
    }))
}
