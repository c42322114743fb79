import { CustomDomains, runWorker, type WorkerOptions } from "@atrium/domain"
import { Effect, Layer } from "effect"

/**
 * Checks custom domains when they are due, on the common worker loop: leased claims shared by every app process,
 * each domain its own unit of failure. DNS is slow and checks are rare, so few run at once and idle polls are relaxed.
 */
export const DomainVerificationWorker = {
  layer: (options: Partial<WorkerOptions> = {}) =>
    Layer.effectDiscard(Effect.gen(function*() {
      const domains = yield* CustomDomains
      yield* runWorker(domains.queue, { concurrency: 8, idlePoll: "5 seconds", ...options })
    }))
}
