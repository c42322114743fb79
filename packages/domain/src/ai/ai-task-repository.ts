import type { Array as Arr } from "effect"
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { ReservationsNotWritten } from "./reservations-not-written.ts"
import type { AiTask } from "./ai-task.ts"
import type { SubmissionBudget } from "./ai-reservation.ts"
import type { UsageMonth, UsageRecord } from "../billing/index.ts"
import type { SettlementBudget, SettlementCharge } from "./ai-settlement.ts"
import type { RecordedChanges } from "../audit/index.ts"
import type { Unavailable } from "../shared/index.ts"
import type { TaskId, WorkspaceId } from "../shared/index.ts"

/** How long an `Idempotency-Key` answers with its first task. */
export const idempotencyWindowMillis = 24 * 60 * 60 * 1000

/** A submission's `Idempotency-Key` in its workspace. */
export interface IdempotencyKeyRef {
  readonly workspaceId: WorkspaceId
  readonly key: string
}

/** A key's first use, stored with the task it created: the key, a digest of the request, and that task's id. */
export interface IdempotencyEntry {
  readonly key: string
  readonly requestHash: string
  readonly taskId: TaskId
}

/** A key in use (younger than 24 h): the digest of the request that first used it and the task it created, as it now stands. */
export interface IdempotencyRecord {
  readonly workspaceId: WorkspaceId
  readonly key: string
  readonly requestHash: string
  readonly task: AiTask
}

/** A workspace and the month its submissions count in: what one `SubmissionBudget` is read for. */
export interface BudgetKey {
  readonly workspaceId: WorkspaceId
  readonly month: UsageMonth
}

/** What a settlement group stores before it takes any billing lock: the finished tasks, their usage records, audit entries and events. */
export interface FinishedBatch {
  readonly tasks: Arr.NonEmptyReadonlyArray<AiTask>
  readonly records: ReadonlyArray<UsageRecord>
  readonly changes: RecordedChanges
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
   * The keys of `keys` in use at `now` (stored less than 24 h before it), each once, with the task each created. A read
   * for operators and tests: a submission batch learns of its keys in use from `insertReserved`, in the same statement.
   */
  readonly findIdempotencyKeys: (keys: Arr.NonEmptyReadonlyArray<IdempotencyKeyRef>, now: DateTime.Utc) => Effect.Effect<ReadonlyArray<IdempotencyRecord>, Unavailable>
  /**
   * Takes the billing lock of every workspace in `keys` (in one order, so batches never deadlock) and reads, after it,
   * each key's budget: the account (an empty one when the workspace has none; it is not created), the month's meters as
   * the previous holder of the lock left them, and the features granted in force at `now`. Call it in the transaction
   * that then calls `insertReserved`. Postgres: one statement that locks the accounts (`FOR UPDATE`),
   * then locks and returns the meters of the locked accounts with an upsert (which, unlike a read, sees the latest
   * committed row after a lock wait).
   */
  readonly lockBudgets: (keys: Arr.NonEmptyReadonlyArray<BudgetKey>, now: DateTime.Utc) => Effect.Effect<ReadonlyArray<SubmissionBudget>, Unavailable>
  /**
   * Inserts newly submitted tasks and adds each one's `reservedMicros` to its account's reservations and to its
   * month's (that of `createdAt`) reservations and task count, as increments; stores `changes` (their audit entries and
   * events) and `keys` (each naming a task of the batch; stored at that task's `createdAt`, replacing an expired use)
   * with them, and answers no keys. When keys of `keys` are in use (stored less than 24 h before their task's
   * `createdAt`), it writes nothing and answers those keys, each with the digest of the request that first used it and
   * the task it created, as it now stands: the caller decides its batch again knowing them. Call it in the transaction
   * of `lockBudgets`, after it: every batch of a workspace takes its billing lock before writing keys, so after the lock
   * this sees every key of the workspace's earlier batches. Writes nothing and fails with `ReservationsNotWritten` when
   * a reservation has no billing account, or a key is taken but cannot be answered (another transaction took it meanwhile
   * without the lock, or its task is gone): neither can follow from budgets read under `lockBudgets`. Postgres: one
   * statement for the batch.
   */
  readonly insertReserved: (
    tasks: Arr.NonEmptyReadonlyArray<AiTask>,
    changes: RecordedChanges,
    keys?: ReadonlyArray<IdempotencyEntry>
  ) => Effect.Effect<ReadonlyArray<IdempotencyRecord>, Unavailable | ReservationsNotWritten>
  /**
   * Locks the rows of `tasks` (in one order) and returns each task as it now stands, for settling it once: a task
   * another worker settled meanwhile comes back finished; one that is gone (or of another workspace) is left out. Only
   * what claims and settlements change is read (Postgres); the rest is the caller's copy. Call it first in the
   * settlement's transaction.
   */
  readonly lockTasks: (tasks: Arr.NonEmptyReadonlyArray<AiTask>) => Effect.Effect<ReadonlyArray<AiTask>, Unavailable>
  /** Stores the finished tasks of a settlement group, under the locks `lockTasks` took. Postgres: one statement. */
  readonly saveFinished: (batch: FinishedBatch) => Effect.Effect<void, Unavailable>
  /**
   * Takes the billing lock of every workspace of `charges` (in one order, as `lockBudgets`) and moves its account and
   * the charged months' meters by them, as increments that never go below zero (an account or month missing starts
   * empty); answers each charge's month as it now stands, with its account. Call it last in a settlement's transaction,
   * so the lock every submission of the workspace needs is held the least. Postgres: one statement.
   */
  readonly chargeSettled: (charges: Arr.NonEmptyReadonlyArray<SettlementCharge>) => Effect.Effect<ReadonlyArray<SettlementBudget>, Unavailable>
}>()("@atrium/domain/AiTaskRepository") {}
