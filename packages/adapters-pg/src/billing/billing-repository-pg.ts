import {
  BillingAccount,
  BillingRepository,
  MonthlyUsage,
  type PageRequest,
  type UsageMonth,
  UsageRecord,
  type WorkspaceId
} from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { BillingAccountRow, MonthlyUsageRow, UsageRecordRow } from "./billing-rows.ts"
import { afterCursor, fetchSize, toPageBy } from "../shared/keyset-page.ts"
import { orUnavailable } from "../shared/sql-errors.ts"

const decodeAccounts = Schema.decodeUnknownEffect(Schema.Array(BillingAccountRow))
const decodeUsage = Schema.decodeUnknownEffect(Schema.Array(MonthlyUsageRow))
const decodeRecords = Schema.decodeUnknownEffect(Schema.Array(UsageRecordRow))

/** Postgres billing: one locked account row per workspace serializes every change of its money. */
export const BillingRepositoryPg = Layer.effect(
  BillingRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // The row must exist to be locked, so a first call creates it. `ON CONFLICT DO NOTHING` lets concurrent first
    // calls race safely (the loser waits for the winner's insert); `FOR UPDATE` then holds the row until the caller's
    // transaction ends, so concurrent reservations of one workspace take turns, however many connections the pool has.
    // The insert selects from `workspaces`, so an unknown workspace gets an empty account and no error, as in memory.
    const account = Effect.fn("BillingRepository.account")(function*(workspaceId: WorkspaceId) {
      yield* sql`
        INSERT INTO billing_accounts (workspace_id, credit_balance_micros, reserved_micros)
        SELECT id, 0, 0 FROM workspaces WHERE id = ${workspaceId}
        ON CONFLICT (workspace_id) DO NOTHING
      `.pipe(orUnavailable)
      const [row] = yield* sql`
        SELECT workspace_id, credit_balance_micros, reserved_micros, spend_cap_micros, task_cap
        FROM billing_accounts WHERE workspace_id = ${workspaceId} FOR UPDATE
      `.pipe(Effect.flatMap(decodeAccounts), orUnavailable)
      return row === undefined ? BillingAccount.empty(workspaceId) : new BillingAccount(row)
    })

    const saveAccount = Effect.fn("BillingRepository.saveAccount")(function*(next: BillingAccount) {
      yield* sql`
        INSERT INTO billing_accounts (workspace_id, credit_balance_micros, reserved_micros, spend_cap_micros, task_cap)
        VALUES (${next.workspaceId}, ${next.creditBalanceMicros}, ${next.reservedMicros}, ${Option.getOrNull(next.spendCapMicros)}, ${Option.getOrNull(next.taskCap)})
        ON CONFLICT (workspace_id) DO UPDATE SET
          credit_balance_micros = EXCLUDED.credit_balance_micros,
          reserved_micros = EXCLUDED.reserved_micros,
          spend_cap_micros = EXCLUDED.spend_cap_micros,
          task_cap = EXCLUDED.task_cap
      `.pipe(orUnavailable)
    })

    const monthlyUsage = Effect.fn("BillingRepository.monthlyUsage")(function*(workspaceId: WorkspaceId, month: UsageMonth) {
      const [row] = yield* sql`
        SELECT workspace_id, month, spent_micros, reserved_micros, task_count, cap_notices
        FROM monthly_usage WHERE workspace_id = ${workspaceId} AND month = ${month}
      `.pipe(Effect.flatMap(decodeUsage), orUnavailable)
      return row === undefined ? MonthlyUsage.empty(workspaceId, month) : new MonthlyUsage(row)
    })

    const saveMonthlyUsage = Effect.fn("BillingRepository.saveMonthlyUsage")(function*(usage: MonthlyUsage) {
      yield* sql`
        INSERT INTO monthly_usage (workspace_id, month, spent_micros, reserved_micros, task_count, cap_notices)
        VALUES (${usage.workspaceId}, ${usage.month}, ${usage.spentMicros}, ${usage.reservedMicros}, ${usage.taskCount}, ${[...usage.capNotices]}::text[])
        ON CONFLICT (workspace_id, month) DO UPDATE SET
          spent_micros = EXCLUDED.spent_micros,
          reserved_micros = EXCLUDED.reserved_micros,
          task_count = EXCLUDED.task_count,
          cap_notices = EXCLUDED.cap_notices
      `.pipe(orUnavailable)
    })

    // One record per task: a second insert for the same task (a settle that ran twice) changes nothing.
    const insertUsageRecord = Effect.fn("BillingRepository.insertUsageRecord")(function*(record: UsageRecord) {
      yield* sql`
        INSERT INTO usage_records (task_id, workspace_id, model, input_tokens, output_tokens, cost_micros, month, created_at)
        VALUES (
          ${record.taskId}, ${record.workspaceId}, ${record.model}, ${record.inputTokens}, ${record.outputTokens},
          ${record.costMicros}, ${record.month}, ${DateTime.toDateUtc(record.createdAt)}
        )
        ON CONFLICT (task_id) DO NOTHING
      `.pipe(orUnavailable)
    })

    const recordCreditGrant = Effect.fn("BillingRepository.recordCreditGrant")(
      function*(reference: string, workspaceId: WorkspaceId, micros: number, at: DateTime.Utc) {
        const rows = yield* sql`
          INSERT INTO credit_grants (reference, workspace_id, micros, created_at)
          VALUES (${reference}, ${workspaceId}, ${micros}, ${DateTime.toDateUtc(at)})
          ON CONFLICT (reference) DO NOTHING
          RETURNING reference
        `.pipe(orUnavailable)
        return rows.length === 1
      }
    )

    const listUsageRecords = Effect.fn("BillingRepository.listUsageRecords")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      const records = yield* sql`
        SELECT task_id, workspace_id, model, input_tokens, output_tokens, cost_micros, month, created_at
        FROM usage_records
        WHERE workspace_id = ${workspaceId} AND ${afterCursor(sql, page, "task_id")}
        ORDER BY created_at DESC, task_id COLLATE "C" DESC
        LIMIT ${fetchSize(page)}
      `.pipe(
        Effect.flatMap(decodeRecords),
        Effect.map((rows) => rows.map((row) => new UsageRecord(row))),
        orUnavailable
      )
      return toPageBy(records, page, (record) => ({ createdAt: record.createdAt, id: record.taskId }))
    })

    return BillingRepository.of({ account, saveAccount, monthlyUsage, saveMonthlyUsage, insertUsageRecord, recordCreditGrant, listUsageRecords })
  })
)
