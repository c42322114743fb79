import { Effect } from "effect"
import { AiTasks } from "../ai/index.ts"
import { type OpenedDelivery, WebhookDeliveries } from "../webhooks/index.ts"

/** One webhook worker pass by hand: claims up to `limit`, sends each in turn and records them together. */
export const runDueDeliveries = Effect.fn("testing.runDueDeliveries")(function*(limit: number) {
  const deliveries = yield* WebhookDeliveries
  const [first, ...rest] = yield* Effect.forEach(yield* deliveries.claim(limit), deliveries.send)
  return first === undefined ? [] : yield* deliveries.record([first, ...rest])
})

/** One whole attempt of a claimed delivery by hand: sent, then recorded. */
export const deliverOne = Effect.fn("testing.deliverOne")(function*(claimed: OpenedDelivery) {
  const deliveries = yield* WebhookDeliveries
  const [attempt] = yield* deliveries.record([yield* deliveries.send(claimed)])
  return attempt ?? (yield* Effect.die(new Error("an attempt was recorded without its result")))
})

/** One AI task worker pass by hand: claims up to `limit` and executes each in turn. */
export const runDueTasks = Effect.fn("testing.runDueTasks")(function*(limit: number) {
  const tasks = yield* AiTasks
  return yield* Effect.forEach(yield* tasks.claim(limit), tasks.execute)
})
