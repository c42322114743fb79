import { Context, type DateTime, type Effect, type Option } from "effect"
import type { AiTask } from "./ai-task.ts"
import type { Unavailable } from "../shared/index.ts"
import type { TaskId, WorkspaceId } from "../shared/index.ts"

/** How long an `Idempotency-Key` answers with its first task. */
export const idempotencyWindowMillis = 24 * 60 * 60 * 1000

/** What an `Idempotency-Key` was first used for: a digest of the request and the task it created. */
export interface IdempotencyEntry {
  readonly requestHash: string
  readonly taskId: TaskId
}

/** Port: AI tasks, the queue the task workers share, and the idempotency keys of submissions. */
export class AiTaskRepository extends Context.Service<AiTaskRepository, {
  readonly insert: (task: AiTask) => Effect.Effect<void, Unavailable>
  /** The task, only when it belongs to `workspaceId`. */
  readonly findById: (workspaceId: WorkspaceId, id: TaskId) => Effect.Effect<Option.Option<AiTask>, Unavailable>
  /** Replaces the stored task (same id). */
  readonly update: (task: AiTask) => Effect.Effect<void, Unavailable>
  /**
   * Claims up to `limit` unfinished tasks (queued, or running with a lapsed lease) whose `nextAttemptAt` is at or
   * before `now`, oldest due first, and leases them until `leaseUntil`: each is stored and returned as `running`, with
   * `attempts + 1`, `nextAttemptAt = leaseUntil` and `startedAt` set on the first claim. Another worker (or this one
   * after a crash) sees a task again only when its lease runs out. Postgres: `FOR UPDATE SKIP LOCKED` in one statement.
   */
  readonly claimDue: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<AiTask>, Unavailable>
  /**
   * Atomically: when `(workspaceId, key)` has an entry younger than 24 h at `now`, returns it and changes nothing;
   * otherwise stores `{ requestHash, taskId, createdAt: now }` (replacing an expired entry) and returns none. Call it in
   * the submission's transaction: a concurrent duplicate waits for (or sees) the first and creates no second task, and a
   * rolled-back submission leaves no key behind. Postgres: `INSERT … ON CONFLICT` on a unique `(workspace_id, key)`.
   */
  readonly reserveIdempotencyKey: (
    workspaceId: WorkspaceId,
    key: string,
    requestHash: string,
    taskId: TaskId,
    now: DateTime.Utc
  ) => Effect.Effect<Option.Option<IdempotencyEntry>, Unavailable>
}>()("@atrium/domain/AiTaskRepository") {}
