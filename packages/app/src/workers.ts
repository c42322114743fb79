import { AiTasks, runWorker, WebhookDeliveries, type WorkerOptions } from "@atrium/domain"
import { Effect, Layer } from "effect"

/** The webhook delivery worker: attempts to one endpoint are limited to `perKey` at once. */
export const deliveryWorker = (options: Partial<WorkerOptions> = {}) =>
  Layer.effectDiscard(Effect.flatMap(WebhookDeliveries.queue, (queue) => runWorker(queue, options)))

/** The AI task worker: provider calls can take a minute, so fewer at once than deliveries. */
export const aiTaskWorker = (options: Partial<WorkerOptions> = {}) =>
  Layer.effectDiscard(Effect.flatMap(AiTasks.queue, (queue) => runWorker(queue, { concurrency: 16, ...options })))

/** Every background worker; each app process runs them all and leased claims share the work out. */
export const Workers = Layer.mergeAll(deliveryWorker(), aiTaskWorker())
