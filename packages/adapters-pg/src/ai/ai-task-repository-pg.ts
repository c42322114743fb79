import {
  AiTask,
  AiTaskRepository,
  BillingAccount,
  type BudgetKey,
  Feature,
  type FinishedBatch,
  type IdempotencyEntry,
  type IdempotencyKeyRef,
  type IdempotencyRecord,
  idempotencyWindowMillis,
  monthOf,
  MonthlyUsage,
  type RecordedChanges,
  ReservationsNotWritten,
  type SettlementBudget,
  type SettlementCharge,
  type SubmissionBudget,
  TaskId,
  WorkspaceId
} from "@atrium/domain"
import { Array as Arr, DateTime, Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AiTaskProgressRow, AiTaskRow, LockedAccountRow } from "./ai-rows.ts"
import { MonthlyUsageRow } from "../billing/billing-rows.ts"
import { insertAuditEntries, insertEvents } from "../audit/index.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { workChannel } from "../shared/work-wakeups.ts"
import { dateOrNull } from "../shared/sql-values.ts"

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(AiTaskRow))
const decodeProgress = Schema.decodeUnknownEffect(Schema.Array(AiTaskProgressRow))
const decodeEntries = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ idempotency_key: Schema.String, request_hash: Schema.String })))
// What `insertReserved` could not write (workspaces without an account, keys lost to another transaction), on every
// row; then one row per key in use, with its task when the task is still there (else `id` is null).
const KeyRef = Schema.Struct({ workspaceId: WorkspaceId, key: Schema.String })
const decodeVerdict = Schema.decodeUnknownEffect(Schema.NonEmptyArray(Schema.Struct({
  without_account: Schema.Array(WorkspaceId),
  keys_lost: Schema.Array(KeyRef),
  key_workspace_id: Schema.NullOr(WorkspaceId),
  idempotency_key: Schema.NullOr(Schema.String),
  request_hash: Schema.NullOr(Schema.String),
  id: Schema.NullOr(Schema.String)
})))

// A budget key's account, beside its meters in the same row (an unknown workspace's as zeros).
const decodeLockedAccounts = Schema.decodeUnknownEffect(Schema.Array(LockedAccountRow))
// A budget key's row: its meters (zeros when the month has none yet) and the features granted in force.
const decodeMeters = Schema.decodeUnknownEffect(Schema.Array(MonthlyUsageRow))
const decodeFeatures = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ features: Schema.Array(Feature) })))

const columns =
  "id, workspace_id, model, status, input, max_output_tokens, metadata, output, input_tokens, output_tokens, cost_micros, " +
  "reserved_micros, error, attempts, next_attempt_at, submitted_by, schedule_id, created_at, started_at, finished_at"

// The columns of the row named `t`: the claim's RETURNING list (of the updated row), and a key's task.
const qualifiedColumns = columns.split(", ").map((column) => `t.${column}`).join(", ")

// A task as one element of a JSON array parameter, and the record type `jsonb_to_recordset` reads it with.
const taskRow = (task: AiTask) => ({
  id: task.id,
  workspace_id: task.workspaceId,
  model: task.model,
  status: task.status,
  input: task.input,
  max_output_tokens: task.maxOutputTokens,
  metadata: task.metadata,
  output: Option.getOrNull(task.output),
  input_tokens: Option.getOrNull(task.inputTokens),
  output_tokens: Option.getOrNull(task.outputTokens),
  cost_micros: Option.getOrNull(task.costMicros),
  reserved_micros: task.reservedMicros,
  error: Option.getOrNull(task.error),
  attempts: task.attempts,
  next_attempt_at: Option.getOrNull(Option.map(task.nextAttemptAt, DateTime.formatIso)),
  submitted_by: task.submittedBy,
  schedule_id: Option.getOrNull(task.scheduleId),
  created_at: DateTime.formatIso(task.createdAt),
  started_at: Option.getOrNull(Option.map(task.startedAt, DateTime.formatIso)),
  finished_at: Option.getOrNull(Option.map(task.finishedAt, DateTime.formatIso))
})
const taskRecordColumns =
  "id text, workspace_id text, model text, status text, input jsonb, max_output_tokens bigint, metadata jsonb, output text, " +
  "input_tokens bigint, output_tokens bigint, cost_micros bigint, reserved_micros bigint, error jsonb, attempts bigint, " +
  "next_attempt_at timestamptz, submitted_by jsonb, schedule_id text, created_at timestamptz, started_at timestamptz, " +
  "finished_at timestamptz"

// What claims and settlements change of a task: read under the settlement's lock, written by it.
const progressColumns =
  "id, workspace_id, status, output, input_tokens, output_tokens, cost_micros, error, attempts, next_attempt_at, started_at, finished_at"
const progressRow = (task: AiTask) => ({
  id: task.id,
  workspace_id: task.workspaceId,
  status: task.status,
  output: Option.getOrNull(task.output),
  input_tokens: Option.getOrNull(task.inputTokens),
  output_tokens: Option.getOrNull(task.outputTokens),
  cost_micros: Option.getOrNull(task.costMicros),
  error: Option.getOrNull(task.error),
  attempts: task.attempts,
  next_attempt_at: Option.getOrNull(Option.map(task.nextAttemptAt, DateTime.formatIso)),
  started_at: Option.getOrNull(Option.map(task.startedAt, DateTime.formatIso)),
  finished_at: Option.getOrNull(Option.map(task.finishedAt, DateTime.formatIso))
})
const progressRecordColumns =
  "id text, workspace_id text, status text, output text, input_tokens bigint, output_tokens bigint, cost_micros bigint, " +
  "error jsonb, attempts bigint, next_attempt_at timestamptz, started_at timestamptz, finished_at timestamptz"

const jsonOrNull = <A>(value: Option.Option<A>): string | null => Option.getOrNull(Option.map(value, (v) => JSON.stringify(v)))

/** Postgres AI tasks: the rows, the queue any number of task workers claim from, and submission idempotency keys. */
export const AiTaskRepositoryPg = Layer.effect(
  AiTaskRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // The rows were decoded with every check already: the constructor need not run them again (the input's byte count,
    // the metadata's keys) on each claimed task.
    const toTasks = (rows: ReadonlyArray<unknown>) =>
      decodeRows(rows).pipe(Effect.map((decoded) => decoded.map((row) => new AiTask(row, { disableChecks: true }))))

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
    // exactly once. The due time rides along only to return the tasks oldest due first. The claim's commit does not wait
    // for its WAL flush: a database crash losing it only lets the task be claimed again one attempt short, and money
    // moves only in settlements, whose durable commits flush the claim's records with theirs. (The setting lasts for the
    // transaction: workers claim outside any.)
    const claimDue = Effect.fn("AiTaskRepository.claimDue")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      return yield* sql`
        WITH async_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)), due AS MATERIALIZED (
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
          FROM due, async_commit WHERE t.id = due.id
          RETURNING ${sql.literal(qualifiedColumns)}, due.due_at
        )
        SELECT ${sql.literal(columns)} FROM leased ORDER BY due_at, id
      `.pipe(Effect.flatMap(toTasks), orUnavailable)
    })

    // The keys' tasks come with them, so a replay costs no further statement. Called after `lockBudgets`, whose locks
    // every batch writing keys of these workspaces holds until it commits: this new statement's snapshot has their keys.
    // Each key, then its task, is read by its primary key (a LATERAL subquery with LIMIT is never flattened into a join
    // the planner may reorder): as a plain join, a plan cached while the tables were small joined every task of the
    // workspace with every key of it, and a burst of keyed submissions soon spent seconds in each lookup.
    const findIdempotencyKeys = Effect.fn("AiTaskRepository.findIdempotencyKeys")(
      function*(keys: Arr.NonEmptyReadonlyArray<IdempotencyKeyRef>, now: DateTime.Utc) {
        const expiredAt = DateTime.toDateUtc(DateTime.subtractDuration(now, Duration.millis(idempotencyWindowMillis)))
        const rows = yield* sql`
          SELECT ${sql.literal(qualifiedColumns)}, q.key AS idempotency_key, k.request_hash
          FROM unnest(${keys.map((k) => k.workspaceId)}::text[], ${keys.map((k) => k.key)}::text[]) AS q(workspace_id, key)
          CROSS JOIN LATERAL (
            SELECT request_hash, task_id FROM idempotency_keys
            WHERE workspace_id = q.workspace_id AND key = q.key AND created_at > ${expiredAt} LIMIT 1
          ) k
          CROSS JOIN LATERAL (SELECT * FROM ai_tasks WHERE id = k.task_id AND workspace_id = q.workspace_id LIMIT 1) t
        `.pipe(orUnavailable)
        const tasks = yield* toTasks(rows).pipe(orUnavailable)
        const entries = yield* decodeEntries(rows).pipe(orUnavailable)
        return Arr.zip(tasks, entries).map(([task, entry]): IdempotencyRecord => ({
          workspaceId: task.workspaceId,
          key: entry.idempotency_key,
          requestHash: entry.request_hash,
          task
        }))
      }
    )

    // One statement locks and reads. The accounts and the month's meters are locked with upserts, not `SELECT … FOR
    // UPDATE` joined to the meters: after waiting for a lock, an upsert works on (and returns) the latest committed row,
    // whereas every plain read of a statement sees the snapshot taken before the wait — the previous holder's reservations
    // would be missing. The accounts come first, in id order (the one-time filter over `accounts` reads them all before
    // any meter is touched), so batches, settlements and single-account changes take their locks in one order. A missing
    // account is created empty, as `BillingRepository.account` would; an unknown workspace reads as empty. The keys come as
    // one JSON array, whose row estimate does not depend on the call, so PostgreSQL caches the plan (as arrays, each call's
    // length made every call planned anew); each workspace is read by its primary key whatever that estimate.
    const lockBudgets = Effect.fn("AiTaskRepository.lockBudgets")(function*(keys: Arr.NonEmptyReadonlyArray<BudgetKey>, now: DateTime.Utc) {
      const rows = yield* sql`
        WITH keys AS MATERIALIZED (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(keys.map((key, position) => ({ workspace_id: key.workspaceId, month: key.month, position })))}::jsonb)
            AS k(workspace_id text, month text, position integer)
        ), accounts AS (
          INSERT INTO billing_accounts AS a (workspace_id, credit_balance_micros, reserved_micros)
          SELECT DISTINCT w.id, 0, 0 FROM keys k CROSS JOIN LATERAL (SELECT id FROM workspaces WHERE id = k.workspace_id LIMIT 1) w ORDER BY w.id
          ON CONFLICT (workspace_id) DO UPDATE SET credit_balance_micros = a.credit_balance_micros
          RETURNING a.workspace_id, a.credit_balance_micros, a.reserved_micros, a.spend_cap_micros, a.task_cap
        ), meters AS (
          INSERT INTO monthly_usage AS u (workspace_id, month, spent_micros, reserved_micros, task_count, cap_notices)
          SELECT k.workspace_id, k.month, 0, 0, 0, '{}' FROM keys k
          WHERE (SELECT count(*) FROM accounts) >= 0 AND k.workspace_id IN (SELECT workspace_id FROM accounts)
          ORDER BY k.workspace_id, k.month
          ON CONFLICT (workspace_id, month) DO UPDATE SET task_count = u.task_count
          RETURNING u.workspace_id, u.month, u.spent_micros, u.reserved_micros, u.task_count, u.cap_notices
        )
        SELECT
          k.workspace_id, k.month, COALESCE(m.spent_micros, 0)::bigint AS spent_micros,
          COALESCE(m.reserved_micros, 0)::bigint AS reserved_micros, COALESCE(m.task_count, 0)::bigint AS task_count,
          COALESCE(m.cap_notices, '{}') AS cap_notices,
          COALESCE(a.credit_balance_micros, 0)::bigint AS credit_balance_micros,
          COALESCE(a.reserved_micros, 0)::bigint AS account_reserved_micros, a.spend_cap_micros, a.task_cap,
          ARRAY(
            SELECT DISTINCT e.feature FROM entitlements e
            WHERE e.workspace_id = k.workspace_id AND (e.expires_at IS NULL OR e.expires_at > ${DateTime.toDateUtc(now)})
          ) AS features
        FROM keys k
        LEFT JOIN meters m ON m.workspace_id = k.workspace_id AND m.month = k.month
        LEFT JOIN accounts a ON a.workspace_id = k.workspace_id
        ORDER BY k.position
      `.pipe(orUnavailable)
      const meters = yield* decodeMeters(rows).pipe(orUnavailable)
      const accounts = yield* decodeLockedAccounts(rows).pipe(orUnavailable)
      const features = yield* decodeFeatures(rows).pipe(orUnavailable)
      return meters.map((usage, i): SubmissionBudget => ({
        account: Option.match(Option.fromNullishOr(accounts[i]), { onNone: () => BillingAccount.empty(usage.workspaceId), onSome: (row) => new BillingAccount(row) }),
        usage: new MonthlyUsage(usage),
        activeFeatures: features[i]?.features ?? []
      }))
    })

    // One statement for the batch: the tasks (with their idempotency keys) travel as one JSON array; the accounts and
    // meters grow by increments, so the statement is right whatever they held; the audit entries and events of the batch
    // go in with them. A reservation beyond a balance breaks the table's check (a defect). A key in use makes the
    // statement write nothing and answer the key with its task (so a keyed batch costs no lookup of its own before it;
    // a batch holding a replay beside new tasks writes twice); a reservation for a workspace without an account
    // makes it write nothing and say so. A key another transaction took meanwhile (its batch would have had to skip the
    // billing lock) shows as a key not written, and failing rolls back the caller's transaction with it.
    const insertReserved = Effect.fn("AiTaskRepository.insertReserved")(
      function*(tasks: Arr.NonEmptyReadonlyArray<AiTask>, changes: RecordedChanges, keys: ReadonlyArray<IdempotencyEntry> = []) {
        const keyOf = new Map(keys.map((entry) => [entry.taskId, entry]))
        const inputRows = tasks.map((task) => ({
          ...taskRow(task),
          month: monthOf(task.createdAt),
          idempotency_key: keyOf.get(task.id)?.key ?? null,
          request_hash: keyOf.get(task.id)?.requestHash ?? null
        }))
        const writes = sql`(SELECT writes FROM verdict)`
        // Idle workers of every process hear of the new tasks when the batch commits.
        const rows = yield* sql`
          WITH input AS MATERIALIZED (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(inputRows)}::jsonb)
              AS t(${sql.literal(taskRecordColumns)}, month text, idempotency_key text, request_hash text)
          ), per_month AS (
            SELECT workspace_id, month, sum(reserved_micros) AS micros, count(*) AS tasks FROM input GROUP BY workspace_id, month
          ), per_account AS (
            SELECT workspace_id, sum(micros) AS micros FROM per_month GROUP BY workspace_id HAVING sum(micros) > 0
          ), without_account AS MATERIALIZED (
            SELECT p.workspace_id FROM per_account p WHERE NOT EXISTS (SELECT 1 FROM billing_accounts a WHERE a.workspace_id = p.workspace_id)
          ), keys_taken AS MATERIALIZED (
            -- Each key read by its primary key, as in findIdempotencyKeys.
            SELECT i.workspace_id, i.idempotency_key AS key, taken.request_hash, taken.task_id FROM input i
            CROSS JOIN LATERAL (
              SELECT k.request_hash, k.task_id FROM idempotency_keys k WHERE k.workspace_id = i.workspace_id AND k.key = i.idempotency_key
                AND k.created_at > i.created_at - ${idempotencyWindowMillis} * interval '1 millisecond' LIMIT 1
            ) taken
          ), verdict AS MATERIALIZED (
            SELECT NOT EXISTS (SELECT 1 FROM without_account) AND NOT EXISTS (SELECT 1 FROM keys_taken) AS writes
          ), inserted AS (
            INSERT INTO ai_tasks (${sql.literal(columns)}) SELECT ${sql.literal(columns)} FROM input WHERE ${writes}
          ), accounts AS (
            UPDATE billing_accounts a SET reserved_micros = a.reserved_micros + p.micros
            FROM per_account p WHERE a.workspace_id = p.workspace_id AND ${writes}
          ), meters AS (
            INSERT INTO monthly_usage (workspace_id, month, spent_micros, reserved_micros, task_count, cap_notices)
            SELECT workspace_id, month, 0, micros, tasks, '{}' FROM per_month WHERE ${writes}
            ON CONFLICT (workspace_id, month) DO UPDATE SET
              reserved_micros = monthly_usage.reserved_micros + EXCLUDED.reserved_micros,
              task_count = monthly_usage.task_count + EXCLUDED.task_count
          ), keys AS (
            INSERT INTO idempotency_keys (workspace_id, key, request_hash, task_id, created_at)
            SELECT workspace_id, idempotency_key, request_hash, id, created_at FROM input WHERE idempotency_key IS NOT NULL AND ${writes}
            ON CONFLICT (workspace_id, key) DO UPDATE
            SET request_hash = EXCLUDED.request_hash, task_id = EXCLUDED.task_id, created_at = EXCLUDED.created_at
            WHERE idempotency_keys.created_at <= EXCLUDED.created_at - ${idempotencyWindowMillis} * interval '1 millisecond'
            RETURNING workspace_id, key
          ), keys_lost AS (
            SELECT i.workspace_id, i.idempotency_key AS key FROM input i
            WHERE i.idempotency_key IS NOT NULL AND ${writes}
              AND NOT EXISTS (SELECT 1 FROM keys k WHERE k.workspace_id = i.workspace_id AND k.key = i.idempotency_key)
          ), audit AS (
            ${insertAuditEntries(sql, changes.entries, writes)}
          ), outbox AS (
            ${insertEvents(sql, changes.events, writes)}
          ), notified AS MATERIALIZED (
            SELECT pg_notify(${workChannel}, 'ai_tasks')
          )
          SELECT
            ARRAY(SELECT workspace_id FROM without_account ORDER BY workspace_id) AS without_account,
            (SELECT COALESCE(jsonb_agg(jsonb_build_object('workspaceId', workspace_id, 'key', key)), '[]') FROM keys_lost) AS keys_lost,
            taken.*
          FROM notified
          LEFT JOIN LATERAL (
            -- Each key's task by its primary key, as in findIdempotencyKeys.
            SELECT kt.workspace_id AS key_workspace_id, kt.key AS idempotency_key, kt.request_hash, ${sql.literal(qualifiedColumns)}
            FROM keys_taken kt
            LEFT JOIN LATERAL (SELECT * FROM ai_tasks WHERE id = kt.task_id AND workspace_id = kt.workspace_id LIMIT 1) t ON true
          ) taken ON true
        `.pipe(orUnavailable)
        const verdict = yield* decodeVerdict(rows).pipe(orUnavailable)
        const [{ keys_lost, without_account }] = verdict
        // The keys in use: with their task (answered), or without (a key whose task is gone cannot be replayed).
        const answered: Array<unknown> = []
        const unanswered: Array<typeof KeyRef.Type> = []
        for (const [i, row] of verdict.entries()) {
          if (row.key_workspace_id === null || row.idempotency_key === null) continue
          if (row.id === null) unanswered.push({ workspaceId: row.key_workspace_id, key: row.idempotency_key })
          else answered.push(rows[i])
        }
        if (without_account.length > 0 || keys_lost.length > 0 || unanswered.length > 0) {
          return yield* new ReservationsNotWritten({ withoutAccount: without_account, keysInUse: [...unanswered, ...keys_lost] })
        }
        const tasksInUse = yield* toTasks(answered).pipe(orUnavailable)
        const entries = yield* decodeEntries(answered).pipe(orUnavailable)
        return Arr.zip(tasksInUse, entries).map(([task, entry]): IdempotencyRecord => ({
          workspaceId: task.workspaceId,
          key: entry.idempotency_key,
          requestHash: entry.request_hash,
          task
        }))
      }
    )

    // Locked in id order, so two settlements sharing tasks wait for each other instead of deadlocking; after a wait the
    // lock returns the row as the other one left it (finished, so it is not settled twice). Only the columns claims and
    // settlements change are read: the rest never changes, and the caller's copy has it.
    const lockTasks = Effect.fn("AiTaskRepository.lockTasks")(function*(tasks: Arr.NonEmptyReadonlyArray<AiTask>) {
      const rows = yield* sql`
        SELECT ${sql.literal(progressColumns)} FROM ai_tasks WHERE id = ANY(${tasks.map((task) => task.id)}) ORDER BY id FOR UPDATE
      `.pipe(Effect.flatMap(decodeProgress), orUnavailable)
      const byId = new Map(rows.map((row) => [row.id, row]))
      return tasks.flatMap((task) => {
        const row = byId.get(task.id)
        if (row === undefined || row.workspaceId !== task.workspaceId) return []
        // Status and attempts tell whether anything moved since the caller's copy (a claim, requeue or settlement changes them).
        return row.status === task.status && row.attempts === task.attempts ? [task] : [new AiTask({ ...task, ...row }, { disableChecks: true })]
      })
    })

    // One statement for a settlement group's finished tasks, their usage records, audit entries and events; no billing
    // lock is taken (`chargeSettled` does, last).
    const saveFinished = Effect.fn("AiTaskRepository.saveFinished")(function*(batch: FinishedBatch) {
      const records = batch.records.map((record) => ({
        task_id: record.taskId,
        workspace_id: record.workspaceId,
        model: record.model,
        input_tokens: record.inputTokens,
        output_tokens: record.outputTokens,
        cost_micros: record.costMicros,
        month: record.month,
        created_at: DateTime.formatIso(record.createdAt)
      }))
      yield* sql`
        WITH finished AS (
          UPDATE ai_tasks t SET
            status = r.status, output = r.output, input_tokens = r.input_tokens, output_tokens = r.output_tokens,
            cost_micros = r.cost_micros, error = r.error, attempts = r.attempts,
            next_attempt_at = r.next_attempt_at, started_at = r.started_at, finished_at = r.finished_at
          FROM jsonb_to_recordset(${JSON.stringify(batch.tasks.map(progressRow))}::jsonb) AS r(${sql.literal(progressRecordColumns)})
          WHERE t.id = r.id AND t.workspace_id = r.workspace_id
        ), records AS (
          INSERT INTO usage_records (task_id, workspace_id, model, input_tokens, output_tokens, cost_micros, month, created_at)
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS r(
            task_id text, workspace_id text, model text, input_tokens bigint, output_tokens bigint, cost_micros bigint,
            month text, created_at timestamptz
          )
          ON CONFLICT (task_id) DO NOTHING
        ), audit AS (
          ${insertAuditEntries(sql, batch.changes.entries)}
        ), outbox AS (
          ${insertEvents(sql, batch.changes.events)}
        )
        SELECT 1
      `.pipe(orUnavailable)
    })

    // One statement locks and charges, as `lockBudgets` locks: accounts first, in id order (the one-time filter reads
    // them all before any meter is touched), each workspace by its primary key; then the months. Upserts, so that after a
    // lock wait each increment applies to the latest committed row. The charges travel as one JSON array (a plan cached).
    const chargeSettled = Effect.fn("AiTaskRepository.chargeSettled")(function*(charges: Arr.NonEmptyReadonlyArray<SettlementCharge>) {
      const rows = yield* sql`
        WITH charges AS MATERIALIZED (
          SELECT * FROM jsonb_to_recordset(${
        JSON.stringify(charges.map((charge) => ({
          workspace_id: charge.workspaceId,
          month: charge.month,
          cost_micros: charge.costMicros,
          released_micros: charge.releasedMicros,
          released_tasks: charge.releasedTasks
        })))
      }::jsonb) AS c(workspace_id text, month text, cost_micros bigint, released_micros bigint, released_tasks bigint)
        ), per_account AS MATERIALIZED (
          SELECT workspace_id, sum(cost_micros) AS cost_micros, sum(released_micros) AS released_micros FROM charges GROUP BY workspace_id
        ), accounts AS (
          INSERT INTO billing_accounts AS a (workspace_id, credit_balance_micros, reserved_micros)
          SELECT w.id, 0, 0 FROM per_account p CROSS JOIN LATERAL (SELECT id FROM workspaces WHERE id = p.workspace_id LIMIT 1) w ORDER BY w.id
          ON CONFLICT (workspace_id) DO UPDATE SET
            credit_balance_micros = GREATEST(0, a.credit_balance_micros - (SELECT p.cost_micros FROM per_account p WHERE p.workspace_id = a.workspace_id)),
            reserved_micros = GREATEST(0, a.reserved_micros - (SELECT p.released_micros FROM per_account p WHERE p.workspace_id = a.workspace_id))
          RETURNING a.workspace_id, a.credit_balance_micros, a.reserved_micros, a.spend_cap_micros, a.task_cap
        ), meters AS (
          INSERT INTO monthly_usage AS u (workspace_id, month, spent_micros, reserved_micros, task_count, cap_notices)
          SELECT c.workspace_id, c.month, c.cost_micros, 0, 0, '{}' FROM charges c
          WHERE (SELECT count(*) FROM accounts) >= 0 AND c.workspace_id IN (SELECT workspace_id FROM accounts)
          ORDER BY c.workspace_id, c.month
          ON CONFLICT (workspace_id, month) DO UPDATE SET
            spent_micros = u.spent_micros + EXCLUDED.spent_micros,
            reserved_micros = GREATEST(0, u.reserved_micros -
              (SELECT c.released_micros FROM charges c WHERE c.workspace_id = u.workspace_id AND c.month = u.month)),
            task_count = GREATEST(0, u.task_count - (SELECT c.released_tasks FROM charges c WHERE c.workspace_id = u.workspace_id AND c.month = u.month))
          RETURNING u.workspace_id, u.month, u.spent_micros, u.reserved_micros, u.task_count, u.cap_notices
        )
        SELECT
          m.workspace_id, m.month, m.spent_micros, m.reserved_micros, m.task_count, m.cap_notices,
          a.credit_balance_micros, a.reserved_micros AS account_reserved_micros, a.spend_cap_micros, a.task_cap
        FROM meters m JOIN accounts a ON a.workspace_id = m.workspace_id
      `.pipe(orUnavailable)
      const meters = yield* decodeMeters(rows).pipe(orUnavailable)
      const accounts = yield* decodeLockedAccounts(rows).pipe(orUnavailable)
      return Arr.zipWith(meters, accounts, (usage, account): SettlementBudget => ({ account: new BillingAccount(account), usage: new MonthlyUsage(usage) }))
    })

    return AiTaskRepository.of({ insert, findById, update, claimDue, findIdempotencyKeys, lockBudgets, insertReserved, lockTasks, saveFinished, chargeSettled })
  })
)
