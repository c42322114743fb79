import { DateTime, Effect, Layer, Option } from "effect"
import { AiTask, type SettlementBudget, type SubmissionBudget } from "../ai/index.ts"
import { chargeBudget } from "../ai/ai-settlement.ts"
import { BillingAccount, monthOf, MonthlyUsage } from "../billing/index.ts"
import { AiTaskRepository, type IdempotencyRecord, idempotencyWindowMillis, ReservationsNotWritten } from "../ai/index.ts"
import { BillingRepository } from "../billing/index.ts"
import { pageBy, withEntry, useStore } from "./memory-store.ts"

const millis = DateTime.toEpochMillis

// Whether a stored key use is still in force at `now` (younger than its 24 hours).
const isLive = (entry: { readonly createdAt: DateTime.Utc } | undefined, now: DateTime.Utc) =>
  entry !== undefined && millis(now) - millis(entry.createdAt) < idempotencyWindowMillis


/** In-memory AI tasks, with the same lease and idempotency semantics as the Postgres version. */
export const AiTaskRepositoryMemory = Layer.effect(
  AiTaskRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    const save = (task: AiTask) => write((s) => ({ ...s, aiTasks: withEntry(s.aiTasks, task.id, task) }))
    return AiTaskRepository.of({
      insert: save,
      // The memory transactor already runs one transaction at a time: reading is the lock.
      lockBudgets: (keys, now) =>
        read.pipe(Effect.map((s) =>
          keys.map(({ month, workspaceId }): SubmissionBudget => ({
            account: s.billingAccounts.get(workspaceId) ?? BillingAccount.empty(workspaceId),
            usage: s.monthlyUsage.get(`${workspaceId}/${month}`) ?? MonthlyUsage.empty(workspaceId, month),
            activeFeatures: [...new Set(Array.from(s.entitlements.values()).filter((e) => e.workspaceId === workspaceId && e.isActiveAt(now)).map((e) => e.feature))]
          }))
        )),
      // One step for the whole batch, like the single Postgres statement: a reservation beyond a balance (the table's
      // check there) is a bug, refused as a defect; one without an account, or a key in use whose task is gone, is refused
      // as such; keys in use are answered with their tasks. In each case nothing of the batch is written.
      insertReserved: (tasks, changes, keys = []) =>
        modify<Effect.Effect<ReadonlyArray<IdempotencyRecord>, ReservationsNotWritten>>((before) => {
          const withoutAccount = [...new Set(tasks.filter((task) => task.reservedMicros > 0 && !before.billingAccounts.has(task.workspaceId)).map((task) => task.workspaceId))]
          const byId = new Map(tasks.map((task) => [task.id, task]))
          const stored = keys.flatMap((entry) => {
            const task = byId.get(entry.taskId)
            return task === undefined ? [] : [{ ...entry, workspaceId: task.workspaceId, createdAt: task.createdAt }]
          })
          const inUse = stored.flatMap(({ createdAt, key, workspaceId }) => {
            const entry = before.idempotencyKeys.get(`${workspaceId}/${key}`)
            if (entry === undefined || !isLive(entry, createdAt)) return []
            const task = before.aiTasks.get(entry.taskId)
            return [{ workspaceId, key, requestHash: entry.requestHash, task: task?.workspaceId === workspaceId ? task : undefined }]
          })
          const unanswered = inUse.filter(({ task }) => task === undefined).map(({ key, workspaceId }) => ({ workspaceId, key }))
          if (withoutAccount.length > 0 || unanswered.length > 0) {
            return [Effect.fail(new ReservationsNotWritten({ withoutAccount, keysInUse: unanswered })), before] as const
          }
          const answered = inUse.flatMap(({ task, ...key }) => task === undefined ? [] : [{ ...key, task }])
          if (answered.length > 0) return [Effect.succeed(answered), before] as const
          let s = before
          for (const task of tasks) {
            const account = s.billingAccounts.get(task.workspaceId)
            if (task.reservedMicros > 0 && (account === undefined || account.reservedMicros + task.reservedMicros > account.creditBalanceMicros)) {
              return [Effect.die(new Error("billing_accounts_reserved_within_balance: reservations exceed the balance")), before] as const
            }
            const month = monthOf(task.createdAt)
            const usage = s.monthlyUsage.get(`${task.workspaceId}/${month}`) ?? MonthlyUsage.empty(task.workspaceId, month)
            s = {
              ...s,
              aiTasks: withEntry(s.aiTasks, task.id, task),
              billingAccounts: account === undefined
                ? s.billingAccounts
                : withEntry(s.billingAccounts, task.workspaceId, new BillingAccount({ ...account, reservedMicros: account.reservedMicros + task.reservedMicros })),
              monthlyUsage: withEntry(s.monthlyUsage, `${task.workspaceId}/${month}`, new MonthlyUsage({
                ...usage,
                reservedMicros: usage.reservedMicros + task.reservedMicros,
                taskCount: usage.taskCount + 1
              }))
            }
          }
          const idempotencyKeys = stored.reduce(
            (map, { createdAt, key, requestHash, taskId, workspaceId }) => withEntry(map, `${workspaceId}/${key}`, { key, requestHash, taskId, createdAt }),
            s.idempotencyKeys
          )
          return [Effect.succeed([]), { ...s, idempotencyKeys, audit: [...s.audit, ...changes.entries], events: [...s.events, ...changes.events] }] as const
        }).pipe(Effect.flatten),
      // Like the join in Postgres: a key whose task is gone is not in use.
      findIdempotencyKeys: (keys, now) =>
        read.pipe(Effect.map((s) =>
          keys.flatMap(({ key, workspaceId }) => {
            const entry = s.idempotencyKeys.get(`${workspaceId}/${key}`)
            const task = entry === undefined ? undefined : s.aiTasks.get(entry.taskId)
            return entry === undefined || task === undefined || task.workspaceId !== workspaceId || !isLive(entry, now)
              ? []
              : [{ workspaceId, key, requestHash: entry.requestHash, task }]
          })
        )),
      // The memory transactor already runs one transaction at a time: reading is the lock.
      lockTasks: (tasks) =>
        read.pipe(Effect.map((s) =>
          tasks.flatMap((task) => Option.toArray(Option.filter(Option.fromNullishOr(s.aiTasks.get(task.id)), (stored) => stored.workspaceId === task.workspaceId)))
        )),
      saveFinished: (batch) =>
        write((s) => {
          const recorded = new Set(s.usageRecords.map((r) => r.taskId))
          return {
            ...s,
            aiTasks: batch.tasks.reduce((map, task) => map.get(task.id)?.workspaceId === task.workspaceId ? withEntry(map, task.id, task) : map, s.aiTasks),
            usageRecords: [...s.usageRecords, ...batch.records.filter((r) => !recorded.has(r.taskId))],
            audit: [...s.audit, ...batch.changes.entries],
            events: [...s.events, ...batch.changes.events]
          }
        }),
      // One step, like the single Postgres statement: a workspace that is gone is not charged; an account left reserving
      // beyond its balance (the table's check there) is a bug, refused as a defect, and nothing is written.
      chargeSettled: (charges) =>
        modify((before) => {
          let s = before
          const budgets: Array<SettlementBudget> = []
          for (const charge of charges) {
            if (!s.workspaces.has(charge.workspaceId)) continue
            const key = `${charge.workspaceId}/${charge.month}`
            const { account, usage } = chargeBudget({
              account: s.billingAccounts.get(charge.workspaceId) ?? BillingAccount.empty(charge.workspaceId),
              usage: s.monthlyUsage.get(key) ?? MonthlyUsage.empty(charge.workspaceId, charge.month)
            }, charge)
            if (account.reservedMicros > account.creditBalanceMicros) {
              return [Effect.die(new Error("billing_accounts_reserved_within_balance: reservations exceed the balance")), before] as const
            }
            s = { ...s, billingAccounts: withEntry(s.billingAccounts, account.workspaceId, account), monthlyUsage: withEntry(s.monthlyUsage, key, usage) }
            budgets.push({ account, usage })
          }
          // Each month beside its account as the whole group left it.
          const after = budgets.map((budget) => ({ ...budget, account: s.billingAccounts.get(budget.account.workspaceId) ?? budget.account }))
          return [Effect.succeed(after), s] as const
        }).pipe(Effect.flatten),
      // Like `UPDATE … WHERE id AND workspace_id`: an update naming another workspace touches nothing.
      update: (task) => write((s) => s.aiTasks.get(task.id)?.workspaceId === task.workspaceId ? { ...s, aiTasks: withEntry(s.aiTasks, task.id, task) } : s),
      findById: (workspaceId, id) =>
        read.pipe(Effect.map((s) => Option.fromNullishOr(s.aiTasks.get(id)).pipe(Option.filter((t) => t.workspaceId === workspaceId)))),
      claimDue: (now, limit, leaseUntil) =>
        modify((s) => {
          const due = Array.from(s.aiTasks.values())
            .filter((t) => !t.isFinished && Option.isSome(t.nextAttemptAt) && !DateTime.isGreaterThan(t.nextAttemptAt.value, now))
            .sort((a, b) =>
              millis(Option.getOrElse(a.nextAttemptAt, () => now)) - millis(Option.getOrElse(b.nextAttemptAt, () => now)) ||
              (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
            )
            .slice(0, Math.max(0, limit))
          const leased = due.map((t) =>
            new AiTask({
              ...t,
              status: "running",
              attempts: t.attempts + 1,
              nextAttemptAt: Option.some(leaseUntil),
              startedAt: Option.orElse(t.startedAt, () => Option.some(now))
            })
          )
          return [leased, { ...s, aiTasks: leased.reduce((map, t) => withEntry(map, t.id, t), s.aiTasks) }]
        })
    })
  })
)

/** In-memory billing accounts, monthly meters and usage records. */
export const BillingRepositoryMemory = Layer.effect(
  BillingRepository,
  Effect.gen(function*() {
    const { modify, read, write } = yield* useStore
    return BillingRepository.of({
      account: (workspaceId) =>
        read.pipe(Effect.map((s) => s.billingAccounts.get(workspaceId) ?? BillingAccount.empty(workspaceId))),
      // The table's check: reservations beyond the balance are a bug, refused as a defect.
      saveAccount: (account) =>
        account.reservedMicros > account.creditBalanceMicros
          ? Effect.die(new Error("billing_accounts_reserved_within_balance: reservations exceed the balance"))
          : write((s) => ({ ...s, billingAccounts: withEntry(s.billingAccounts, account.workspaceId, account) })),
      monthlyUsage: (workspaceId, month) =>
        read.pipe(Effect.map((s) => s.monthlyUsage.get(`${workspaceId}/${month}`) ?? MonthlyUsage.empty(workspaceId, month))),
      saveMonthlyUsage: (usage) =>
        write((s) => ({ ...s, monthlyUsage: withEntry(s.monthlyUsage, `${usage.workspaceId}/${usage.month}`, usage) })),
      recordCreditGrant: (reference) =>
        modify((s) => s.creditGrants.has(reference) ? [false, s] : [true, { ...s, creditGrants: new Set([...s.creditGrants, reference]) }]),
      insertUsageRecord: (record) =>
        write((s) => ({
          ...s,
          // One record per task, like the unique constraint in Postgres.
          usageRecords: s.usageRecords.some((r) => r.taskId === record.taskId) ? s.usageRecords : [...s.usageRecords, record]
        })),
      listUsageRecords: (workspaceId, page) =>
        read.pipe(Effect.map((s) => pageBy(s.usageRecords.filter((r) => r.workspaceId === workspaceId), page, (r) => ({ createdAt: r.createdAt, id: r.taskId }))))
    })
  })
)
