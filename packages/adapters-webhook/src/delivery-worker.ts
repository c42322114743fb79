import { type ClaimedDelivery, WebhookDeliveries, WebhookTransport } from "@atrium/domain"
import { Cause, DateTime, Duration, Effect, FiberSet, Layer, Semaphore } from "effect"

/** How hard one process works the delivery queue. */
export interface DeliveryWorkerOptions {
  /** Attempts in flight at once in this process. */
  readonly concurrency: number
  /** Attempts in flight at once to any one endpoint, so a slow endpoint never takes every slot. */
  readonly perEndpoint: number
  /** How long to wait before looking again when nothing was due. */
  readonly idlePoll: Duration.Input
}

/** Sensible defaults for a 2-core machine. */
export const defaultWorkerOptions: DeliveryWorkerOptions = { concurrency: 64, perEndpoint: 8, idlePoll: "100 millis" }

// A claim waiting longer than this for its endpoint's slot is left to expire and be claimed again, never sent late twice.
const staleAfter = Duration.seconds(30)

/**
 * The delivery worker: claims due deliveries (row leases shared by every process), sends each signed attempt through
 * the transport, and records it. Interrupting it aborts attempts in flight; their leases expire and they are sent again.
 */
export const DeliveryWorker = {
  layer: (options: DeliveryWorkerOptions = defaultWorkerOptions) =>
    Layer.effectDiscard(Effect.gen(function*() {
      const deliveries = yield* WebhookDeliveries
      const transport = yield* WebhookTransport
      const running = yield* FiberSet.make()
      let inFlight = 0
      const endpointSlots = new Map<string, Semaphore.Semaphore>()
      const idle = Duration.fromInputUnsafe(options.idlePoll)

      const endpointSlot = (id: string) => {
        const existing = endpointSlots.get(id)
        if (existing !== undefined) return existing
        const created = Semaphore.makeUnsafe(options.perEndpoint)
        endpointSlots.set(id, created)
        return created
      }

      const attempt = Effect.fn("DeliveryWorker.attempt")(function*(claimed: ClaimedDelivery, claimedAt: number) {
        if (Date.now() - claimedAt > Duration.toMillis(staleAfter)) return
        const startedAt = yield* DateTime.now
        const request = yield* deliveries.prepare(claimed)
        const result = yield* transport.send(request)
        yield* deliveries.complete(claimed, startedAt, result)
      })

      const process = (claimed: ClaimedDelivery, claimedAt: number) =>
        attempt(claimed, claimedAt).pipe(
          endpointSlot(claimed.endpoint.id).withPermits(1),
          // Shutdown interrupts are not failures; anything else is logged and the lease brings the delivery back.
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.logWarning("webhook attempt not recorded; it will be retried when its lease ends", cause)
          ),
          Effect.ensuring(Effect.sync(() => {
            inFlight--
          }))
        )

      const pass = Effect.gen(function*() {
        const free = options.concurrency - inFlight
        if (free <= 0) return yield* Effect.sleep("5 millis")
        const claimed = yield* deliveries.claim(free)
        const claimedAt = Date.now()
        inFlight += claimed.length
        for (const item of claimed) yield* FiberSet.run(running, process(item, claimedAt))
        if (claimed.length === 0) yield* Effect.sleep(idle)
      }).pipe(
        // An outage or a defect in one pass must not end the worker: log it, back off, poll again.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logWarning("webhook queue pass failed; retrying", cause).pipe(Effect.andThen(Effect.sleep("1 second")))
        )
      )

      yield* Effect.forever(pass).pipe(Effect.forkScoped)
    }))
}
