import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { AiTasks } from "./ai-tasks.ts"

/**
 * AI task execution: provider calls can take a minute, so fewer at once than webhook attempts; new tasks are announced.
 * A stopping process lets calls in flight finish for 10 s before leaving them to their leases.
 */
export const aiWork: Effect.Effect<ReadonlyArray<Work>, never, AiTasks> = Effect.map(AiTasks.queue, (queue) => [
  declareWork(queue, { concurrency: 64, claimBatch: 32, stopGrace: "10 seconds" }, "ai_tasks")
])
