import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { Actor } from "../shared/index.ts"
import { type Acting, actorOf, type Forbidden, type InsufficientScope, permits } from "../access/index.ts"
import { BillingAccount, monthOf, type UsageMonth, type UsageRecord } from "./billing.ts"
import { ChangeLog } from "../audit/index.ts"
import { InvalidInput, type Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import { BillingRepository } from "./billing-repository.ts"
import { Transactor } from "../shared/index.ts"

/** A workspace's usage for the current UTC month, as `GET /api/mobile/usage` shows it. */
export interface UsageSummary {
  readonly month: UsageMonth
  /** Final cost of this month's succeeded tasks. */
  readonly aiSpendMicros: number
  /** Worst-case cost held by this month's unfinished tasks. */
  readonly reservedMicros: number
  /** This month's tasks that have not failed. */
  readonly taskCount: number
  readonly caps: { readonly aiSpendMicros: number | null; readonly aiTasks: number | null }
  readonly creditBalanceMicros: number
  /** Credits not held by unfinished tasks: what new tasks can reserve. */
  readonly availableCreditMicros: number
}

/** A change of caps: a number sets a cap, `null` removes it, absent leaves it as it is. */
export interface CapsChange {
  readonly spendCapMicros?: number | null | undefined
  readonly taskCap?: number | null | undefined
}

const isAmount = (n: number) => Number.isSafeInteger(n) && n >= 0

/** Who may not: a principal lacking the permission. */
type Refused = Forbidden | InsufficientScope

/**
 * Usage meters, caps and credits of a workspace, in the acting principal's workspace: reading needs `usage.read`;
 * credits and caps need `billing.manage`, which only the system (the operator) holds.
 */
export class Usage extends Context.Service<Usage, {
  readonly current: (principal: Acting) => Effect.Effect<UsageSummary, Refused | Unavailable>
  /** Adds prepaid credits (an operator action); `micros` must be a positive integer. */
  readonly addCredits: (principal: Acting, micros: number) => Effect.Effect<BillingAccount, Refused | InvalidInput | Unavailable>
  /**
   * Adds the credits of a store transaction once: a second call with the same reference adds nothing and answers false.
   * Joins the caller's transaction (a purchase sync credits in the transaction that records the purchase).
   */
  readonly creditOnce: (workspaceId: WorkspaceId, reference: string, micros: number, actor: Actor) => Effect.Effect<boolean, InvalidInput | Unavailable>
  readonly setCaps: (principal: Acting, caps: CapsChange) => Effect.Effect<BillingAccount, Refused | InvalidInput | Unavailable>
  /** Billing events (one per succeeded task), newest first. */
  readonly records: (principal: Acting, page: PageRequest) => Effect.Effect<Page<UsageRecord>, Refused | Unavailable>
}>()("@atrium/domain/Usage") {
  static readonly layer = Layer.effect(
    Usage,
    Effect.gen(function*() {
      const billing = yield* BillingRepository
      const tx = yield* Transactor
      const changes = yield* ChangeLog

      const current = Effect.fn("Usage.current")(function*(principal: Acting) {
        yield* permits(principal, "usage.read")
        const { workspaceId } = principal
        const month = monthOf(yield* DateTime.now)
        const account = yield* billing.account(workspaceId)
        const usage = yield* billing.monthlyUsage(workspaceId, month)
        const summary: UsageSummary = {
          month,
          aiSpendMicros: usage.spentMicros,
          reservedMicros: usage.reservedMicros,
          taskCount: usage.taskCount,
          caps: { aiSpendMicros: Option.getOrNull(account.spendCapMicros), aiTasks: Option.getOrNull(account.taskCap) },
          creditBalanceMicros: account.creditBalanceMicros,
          availableCreditMicros: account.availableMicros
        }
        return summary
      })

      const addCredits = Effect.fn("Usage.addCredits")(function*(principal: Acting, micros: number) {
        yield* permits(principal, "billing.manage")
        const { workspaceId } = principal
        const actor = actorOf(principal)
        if (!isAmount(micros) || micros === 0) return yield* new InvalidInput({ detail: "credits must be a positive integer of micro-USD" })
        return yield* tx.withTransaction(Effect.gen(function*() {
          const account = yield* billing.account(workspaceId)
          const credited = new BillingAccount({ ...account, creditBalanceMicros: account.creditBalanceMicros + micros })
          yield* billing.saveAccount(credited)
          yield* changes.record({ workspaceId, actor, action: "billing.credits_added", target: workspaceId })
          return credited
        }))
      })

      const creditOnce = Effect.fn("Usage.creditOnce")(function*(workspaceId: WorkspaceId, reference: string, micros: number, actor: Actor) {
        if (!isAmount(micros) || micros === 0) return yield* new InvalidInput({ detail: "credits must be a positive integer of micro-USD" })
        return yield* tx.withTransaction(Effect.gen(function*() {
          const account = yield* billing.account(workspaceId)
          if (!(yield* billing.recordCreditGrant(reference, workspaceId, micros, yield* DateTime.now))) return false
          yield* billing.saveAccount(new BillingAccount({ ...account, creditBalanceMicros: account.creditBalanceMicros + micros }))
          yield* changes.record({ workspaceId, actor, action: "billing.credits_added", target: reference })
          return true
        }))
      })

      const setCaps = Effect.fn("Usage.setCaps")(function*(principal: Acting, caps: CapsChange) {
        yield* permits(principal, "billing.manage")
        const { workspaceId } = principal
        const actor = actorOf(principal)
        for (const value of [caps.spendCapMicros, caps.taskCap]) {
          if (typeof value === "number" && !isAmount(value)) return yield* new InvalidInput({ detail: "caps must be non-negative integers or null" })
        }
        const next = (value: number | null | undefined, previous: Option.Option<number>) =>
          value === undefined ? previous : Option.fromNullishOr(value)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const account = yield* billing.account(workspaceId)
          const updated = new BillingAccount({
            ...account,
            spendCapMicros: next(caps.spendCapMicros, account.spendCapMicros),
            taskCap: next(caps.taskCap, account.taskCap)
          })
          yield* billing.saveAccount(updated)
          yield* changes.record({ workspaceId, actor, action: "billing.caps_changed", target: workspaceId })
          return updated
        }))
      })

      const records = Effect.fn("Usage.records")(function*(principal: Acting, page: PageRequest) {
        yield* permits(principal, "usage.read")
        return yield* billing.listUsageRecords(principal.workspaceId, page)
      })

      return Usage.of({ current, addCredits, creditOnce, setCaps, records })
    })
  )
}
