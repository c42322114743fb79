import { AiTask, AiTaskRepository, idempotencyWindowMillis, TaskId, type WorkspaceId } from "@atrium/domain"
import { DateTime, Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AiTaskRow } from "./ai-rows.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { workChannel } from "../shared/work-wakeups.ts"
import { dateOrNull } from "../shared/sql-values.ts"

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(AiTaskRow))
const decodeEntries = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ request_hash: Schema.String, task_id: TaskId })))

const columns =
  "id, workspace_id, model, status, input, max_output_tokens, metadata, output, input_tokens, output_tokens, cost_micros, " +
  "reserved_micros, error, attempts, next_attempt_at, submitted_by, schedule_id, created_at, started_at, finished_at"

// The claim's RETURNING list: the same columns, of the updated row.
const leasedColumns = columns.split(", ").map((column) => `t.${column}`).join(", ")

const jsonOrNull = <A>(value: Option.Option<A>): string | null => Option.getOrNull(Option.map(value, (v) => JSON.stringify(v)))

/** Postgres AI tasks: the rows, the queue any number of task workers claim from, and submission idempotency keys. */
export const AiTaskRepositoryPg = Layer.effect(
  AiTaskRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const toTasks = (rows: ReadonlyArray<unknown>) => decodeRows(rows).pipe(Effect.map((decoded) => decoded.map((row) => new AiTask(row))))

    const insert = Effect.fn("AiTaskRepository.insert")(function*(task: AiTask) {
      // Idle workers of every process hear of the new task when the submission commits.
      yield* sql`
        WITH inserted AS (INSERT INTO ai_tasks (${sql.literal(columns)})
        VALUES (
          ${task.id}, ${task.workspaceId}, ${task.model}, ${task.status}, ${JSON.stringify(task.input)}::jsonb, ${task.maxOutputTokens},
          ${JSON.stringify(task.metadata)}::jsonb, ${Option.getOrNull(task.output)}, ${Option.getOrNull(task.inputTokens)},
          ${Option.getOrNull(task.outputTokens)}, ${Option.getOrNull(task.costMicros)}, ${task.reservedMicros},
          ${jsonOrNull(task.error)}::jsonb, ${task.attempts}, ${dateOrNull(task.nextAttemptAt)}, ${JSON.stringify(task.submittedBy)}::jsonb,
          ${Option.getOrNull(task.scheduleId)}, ${DateTime.toDateUtc(task.createdAt)}, ${dateOrNull(task.startedAt)}, ${dateOrNull(task.finishedAt)}
        ))
        SELECT pg_notify(${workChannel}, 'ai_tasks')
      `.pipe(orUnavailable)
    })

    // The row is locked (`FOR UPDATE`): inside the runner's settle or requeue transaction this makes a second worker
    // holding the same task (its lease ran out while the first still ran) wait, then read the first one's result,
    // so a task is settled and charged exactly once. Outside a transaction the lock ends with the statement.
    const findById = Effect.fn("AiTaskRepository.findById")(function*(workspaceId: WorkspaceId, id: TaskId) {
      const tasks = yield* sql`
        SELECT ${sql.literal(columns)} FROM ai_tasks WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE
      `.pipe(Effect.flatMap(toTasks), orUnavailable)
      return Option.fromNullishOr(tasks[0])
    })

    // Every mutable field; the id, workspace, request and submission never change.
    const update = Effect.fn("AiTaskRepository.update")(function*(task: AiTask) {
      yield* sql`
        UPDATE ai_tasks SET
          status = ${task.status},
          output = ${Option.getOrNull(task.output)},
          input_tokens = ${Option.getOrNull(task.inputTokens)},
          output_tokens = ${Option.getOrNull(task.outputTokens)},
          cost_micros = ${Option.getOrNull(task.costMicros)},
          reserved_micros = ${task.reservedMicros},
          error = ${jsonOrNull(task.error)}::jsonb,
          attempts = ${task.attempts},
          next_attempt_at = ${dateOrNull(task.nextAttemptAt)},
          started_at = ${dateOrNull(task.startedAt)},
          finished_at = ${dateOrNull(task.finishedAt)}
        WHERE id = ${task.id} AND workspace_id = ${task.workspaceId}
      `.pipe(orUnavailable)
    })

    // One statement picks, locks and leases the due rows. SKIP LOCKED lets concurrent claimers pass over each other's
    // rows instead of waiting or taking them twice; the CTE is MATERIALIZED so the locking pick with its LIMIT runs
    // exactly once. The due time rides along only to return the tasks oldest due first.
    const claimDue = Effect.fn("AiTaskRepository.claimDue")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      return yield* sql`
        WITH due AS MATERIALIZED (
          SELECT id, next_attempt_at AS due_at FROM ai_tasks
          WHERE status IN ('queued', 'running') AND next_attempt_at <= ${DateTime.toDateUtc(now)}
          ORDER BY next_attempt_at, id
          LIMIT ${size}
          FOR UPDATE SKIP LOCKED
        ), leased AS (
          UPDATE ai_tasks t SET
            status = 'running',
            attempts = t.attempts + 1,
            next_attempt_at = ${DateTime.toDateUtc(leaseUntil)},
            started_at = COALESCE(t.started_at, ${DateTime.toDateUtc(now)})
          FROM due WHERE t.id = due.id
          RETURNING ${sql.literal(leasedColumns)}, due.due_at
        )
        SELECT ${sql.literal(columns)} FROM leased ORDER BY due_at, id
      `.pipe(Effect.flatMap(toTasks), orUnavailable)
    })

    // Two statements on purpose: when the insert waited for a concurrent submission of the same key, only a new
    // statement's snapshot (READ COMMITTED) sees that submission's committed entry. `DO UPDATE … WHERE` replaces an
    // expired entry in place and otherwise leaves the row as it is (but locked until this transaction ends).
    const reserveIdempotencyKey = Effect.fn("AiTaskRepository.reserveIdempotencyKey")(
      function*(workspaceId: WorkspaceId, key: string, requestHash: string, taskId: TaskId, now: DateTime.Utc) {
        const expiredAt = DateTime.toDateUtc(DateTime.subtractDuration(now, Duration.millis(idempotencyWindowMillis)))
        const stored = yield* sql`
          INSERT INTO idempotency_keys (workspace_id, key, request_hash, task_id, created_at)
          VALUES (${workspaceId}, ${key}, ${requestHash}, ${taskId}, ${DateTime.toDateUtc(now)})
          ON CONFLICT (workspace_id, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, task_id = EXCLUDED.task_id, created_at = EXCLUDED.created_at
          WHERE idempotency_keys.created_at <= ${expiredAt}
          RETURNING task_id
        `.pipe(orUnavailable)
        if (stored.length > 0) return Option.none()
        const [entry] = yield* sql`
          SELECT request_hash, task_id FROM idempotency_keys WHERE workspace_id = ${workspaceId} AND key = ${key}
        `.pipe(Effect.flatMap(decodeEntries), orUnavailable)
        return Option.map(Option.fromNullishOr(entry), (row) => ({ requestHash: row.request_hash, taskId: row.task_id }))
      }
    )

    return AiTaskRepository.of({ insert, findById, update, claimDue, reserveIdempotencyKey })
  })
)
