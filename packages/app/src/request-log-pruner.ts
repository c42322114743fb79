import { RequestLogs } from "@atrium/domain"
import { Effect, Layer, Schedule } from "effect"

/**
 * Prunes request logs older than the retention (7 days) at start and then every hour, in every app process: the
 * delete is idempotent, so processes that prune at once only repeat each other's work.
 */
const layerWith = (every: Schedule.Schedule<unknown>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const logs = yield* RequestLogs
    const step = logs.prune.pipe(
      Effect.tap((gone) => gone > 0 ? Effect.logInfo(`request log: pruned ${gone} lines older than 7 days`) : Effect.void),
      Effect.catch((error) => Effect.logWarning(`request log not pruned (${error.message}); trying again later`))
    )
    yield* Effect.forkScoped(Effect.repeat(step, every))
  }))

/** The pruner every hour (`layerWith` another schedule). */
export const RequestLogPruner = { layer: layerWith(Schedule.spaced("1 hour")), layerWith }
