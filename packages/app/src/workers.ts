import { WorkAnnouncements } from "@atrium/adapters-pg"
import { AiTasks, runWorker, WebhookDeliveries, type WorkerOptions, type WorkQueue } from "@atrium/domain"
import { Effect, Layer } from "effect"

/** How the workers hear of new work besides polling. */
export interface WakeUps {
  /** Listen for work announcements (`LISTEN`); off on PGlite, a single session that a listener would hold for good. */
  readonly listen: boolean
}

const start = <Item, Done>(queue: WorkQueue<Item, never, Done>, channel: string, wakeUps: WakeUps, options: Partial<WorkerOptions>) =>
  Effect.gen(function*() {
    const wakeUp = wakeUps.listen ? yield* (yield* WorkAnnouncements).subscribe(channel) : undefined
    yield* runWorker({ ...queue, wakeUp }, options)
  })

// A stopping process lets its attempts and provider calls in flight finish this long before leaving them to their leases.
const stopGrace = "10 seconds"

/**
 * The webhook delivery worker: attempts to one endpoint are limited to `perKey` at once; new deliveries wake it. An
 * attempt keeps its slot until its record is written, a few milliseconds after its send, so there are 128 slots for
 * sends to go on while records are written; claims wait for 32 free slots and attempts linger 2 ms for company, so
 * claim and record statements each serve tens of attempts (about 60 and 40 in the bench).
 */
export const deliveryWorker = (options: Partial<WorkerOptions> = {}, wakeUps: WakeUps = { listen: true }) =>
  Layer.effectDiscard(Effect.flatMap(WebhookDeliveries.queue, (queue) =>
    start(queue, "webhook_deliveries", wakeUps, { concurrency: 128, claimBatch: 32, completeLinger: "2 millis", stopGrace, ...options }))).pipe(Layer.provide(WorkAnnouncements.layer))

/** The AI task worker: provider calls can take a minute, so fewer at once than deliveries; new tasks wake it. */
export const aiTaskWorker = (options: Partial<WorkerOptions> = {}, wakeUps: WakeUps = { listen: true }) =>
  Layer.effectDiscard(Effect.flatMap(AiTasks.queue, (queue) => start(queue, "ai_tasks", wakeUps, { concurrency: 64, claimBatch: 32, stopGrace, ...options }))).pipe(
    Layer.provide(WorkAnnouncements.layer)
  )

/** Every background worker; each app process runs them all and leased claims share the work out. */
export const workers = (wakeUps: WakeUps) => Layer.mergeAll(deliveryWorker({}, wakeUps), aiTaskWorker({}, wakeUps))
