import { Context, type DateTime, type Effect } from "effect"
import type { BillingAccount, MonthlyUsage, UsageMonth, UsageRecord } from "./billing.ts"
import type { Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"

/** Port: credit balances, caps, monthly meters and usage records. */
export class BillingRepository extends Context.Service<BillingRepository, {
  /**
   * The workspace's account, or an empty one (zero balance, no caps) when it has none. It is the per-workspace
   * billing lock: call it first inside the transaction that changes money (Postgres: create the row if missing, then
   * `SELECT … FOR UPDATE`), so concurrent reservations of one workspace run one after the other.
   */
  readonly account: (workspaceId: WorkspaceId) => Effect.Effect<BillingAccount, Unavailable>
  readonly saveAccount: (account: BillingAccount) => Effect.Effect<void, Unavailable>
  /** The workspace's meters for `month`, or empty ones. Read it after `account` in the same transaction. */
  readonly monthlyUsage: (workspaceId: WorkspaceId, month: UsageMonth) => Effect.Effect<MonthlyUsage, Unavailable>
  readonly saveMonthlyUsage: (usage: MonthlyUsage) => Effect.Effect<void, Unavailable>
  /** Appends a task's billing event; one per task (Postgres: unique on `task_id`). */
  readonly insertUsageRecord: (record: UsageRecord) => Effect.Effect<void, Unavailable>
  /**
   * Records that the credits of `reference` (a store transaction id) were added; false when they already were, so a
   * purchase of credits is credited once however often the store reports it (Postgres: primary key on `reference`).
   */
  readonly recordCreditGrant: (reference: string, workspaceId: WorkspaceId, micros: number, at: DateTime.Utc) => Effect.Effect<boolean, Unavailable>
  /** Usage records of a workspace, newest first. */
  readonly listUsageRecords: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<UsageRecord>, Unavailable>
}>()("@atrium/domain/BillingRepository") {}
