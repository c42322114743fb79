import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { WebhookDeliveries } from "./webhook-deliveries.ts"

/**
 * Webhook delivery: attempts to one endpoint are limited to `perKey` at once; new deliveries are announced. An attempt
 * keeps its slot until its record is written, a few milliseconds after its send, so there are 128 slots for sends to go
 * on while records are written; claims wait for 32 free slots and attempts linger 2 ms for company, so claim and record
 * statements each serve tens of attempts (about 60 and 40 in the bench). A stopping process lets attempts in flight
 * finish for 10 s before leaving them to their leases.
 */
export const webhookWork: Effect.Effect<ReadonlyArray<Work>, never, WebhookDeliveries> = Effect.map(WebhookDeliveries.queue, (queue) => [
  declareWork(queue, { concurrency: 128, claimBatch: 32, completeLinger: "2 millis", stopGrace: "10 seconds" }, "webhook_deliveries")
])
