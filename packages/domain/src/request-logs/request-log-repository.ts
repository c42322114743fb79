import { type Array as Arr, Context, type DateTime, type Effect } from "effect"
import type { Page, PageRequest, Unavailable, WorkspaceId } from "../shared/index.ts"
import type { RequestLogEntry, RequestLogFilter, RequestLogRecord } from "./request-log-entry.ts"

/** Port: the request logs of every workspace, written in batches, read newest first, pruned by age. */
export class RequestLogRepository extends Context.Service<RequestLogRepository, {
  /** Writes a batch: all of it or none. */
  readonly appendAll: (records: Arr.NonEmptyReadonlyArray<RequestLogRecord>) => Effect.Effect<void, Unavailable>
  /** The workspace's lines from `since` on, newest first, narrowed by `filter`. */
  readonly list: (workspaceId: WorkspaceId, filter: RequestLogFilter, page: PageRequest, since: DateTime.Utc) => Effect.Effect<Page<RequestLogEntry>, Unavailable>
  /** Removes lines older than `cutoff` (a store may keep some with newer ones, which `list` skips); answers how many went. */
  readonly pruneBefore: (cutoff: DateTime.Utc) => Effect.Effect<number, Unavailable>
}>()("@atrium/domain/RequestLogRepository") {}
