import { type Array as Arr, Context, DateTime, Effect, Layer } from "effect"
import { type Acting, type Forbidden, memberOf, permits } from "../access/index.ts"
import type { Page, PageRequest, Unavailable } from "../shared/index.ts"
import { type RequestLogEntry, type RequestLogFilter, type RequestLogRecord, requestLogRetention } from "./request-log-entry.ts"
import { RequestLogRepository } from "./request-log-repository.ts"

/** The request logs of `/api/v1`: recorded in batches by the HTTP host, read by admins, pruned after `requestLogRetention`. */
export class RequestLogs extends Context.Service<RequestLogs, {
  /** The principal's workspace's lines, newest first; another workspace's are never seen. */
  readonly list: (principal: Acting, filter: RequestLogFilter, page: PageRequest) => Effect.Effect<Page<RequestLogEntry>, Forbidden | Unavailable>
  /** Writes a batch the host gathered off the request path. */
  readonly record: (records: Arr.NonEmptyReadonlyArray<RequestLogRecord>) => Effect.Effect<void, Unavailable>
  /** One pruning step: removes what is older than the retention; answers how many lines went. */
  readonly prune: Effect.Effect<number, Unavailable>
}>()("@atrium/domain/RequestLogs") {
  static readonly layer = Layer.effect(
    RequestLogs,
    Effect.gen(function*() {
      const repo = yield* RequestLogRepository
      const list = Effect.fn("RequestLogs.list")(function*(acting: Acting, filter: RequestLogFilter, page: PageRequest) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "request_logs.read")
        // Older lines a store has not pruned yet are never listed.
        const since = DateTime.subtractDuration(yield* DateTime.now, requestLogRetention)
        return yield* repo.list(principal.workspaceId, filter, page, since)
      })
      const record = Effect.fn("RequestLogs.record")(function*(records: Arr.NonEmptyReadonlyArray<RequestLogRecord>) {
        yield* repo.appendAll(records)
      })
      const prune = Effect.gen(function*() {
        const now = yield* DateTime.now
        return yield* repo.pruneBefore(DateTime.subtractDuration(now, requestLogRetention))
      }).pipe(Effect.withSpan("RequestLogs.prune"))
      return RequestLogs.of({ list, record, prune })
    })
  )
}
