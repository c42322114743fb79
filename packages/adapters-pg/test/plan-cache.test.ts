import { AiTaskRepository, monthOf } from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { EmbeddedPostgresTemp, layerTestPorts } from "../src/testing.ts"
import { domain, setup } from "./ai-domain-contract.ts"

// How often each prepared statement of the session the enclosing transaction holds was planned for its parameters
// (custom) or ran the plan PostgreSQL caches (generic), by the statement's opening words.
const plansOf = (sql: SqlClient.SqlClient, opening: string) =>
  sql<{ readonly generic_plans: number; readonly custom_plans: number }>`
    SELECT generic_plans::int AS generic_plans, custom_plans::int AS custom_plans FROM pg_prepared_statements
    WHERE ltrim(statement, E' \n\t') LIKE ${`${opening}%`}
  `

layer(layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 2 })), { timeout: "60 seconds", excludeTestServices: true })(
  "the plans of the AI hot path's statements on embedded PostgreSQL",
  (it) => {
    // PostgreSQL plans a prepared statement for its parameters five times, then caches a generic plan unless that looks
    // costlier: the budgets' keys as arrays (`unnest`) had their length estimated from each call, so every call was
    // planned again (~0.3 ms, on every submission and settlement).
    it.effect("the budgets' lock is planned five times, then runs its cached plan", () =>
      Effect.gen(function*() {
        const ws = yield* setup(1_000_000)
        const repo = yield* AiTaskRepository
        const sql = yield* SqlClient.SqlClient
        const now = yield* DateTime.now
        const plans = yield* sql.withTransaction(Effect.gen(function*() {
          for (let i = 0; i < 12; i++) yield* repo.lockBudgets([{ workspaceId: ws, month: monthOf(now) }], now)
          return yield* plansOf(sql, "WITH keys AS MATERIALIZED")
        }))
        assert.deepStrictEqual(plans, [{ custom_plans: 5, generic_plans: 7 }])
      }).pipe(Effect.provide(domain)))

    it.effect("a settlement's charge is planned five times, then runs its cached plan", () =>
      Effect.gen(function*() {
        const ws = yield* setup(1_000_000)
        const repo = yield* AiTaskRepository
        const sql = yield* SqlClient.SqlClient
        const now = yield* DateTime.now
        const plans = yield* sql.withTransaction(Effect.gen(function*() {
          for (let i = 0; i < 12; i++) {
            yield* repo.chargeSettled([{ workspaceId: ws, month: monthOf(now), costMicros: 0, releasedMicros: 0, releasedTasks: 0 }])
          }
          return yield* plansOf(sql, "WITH charges AS MATERIALIZED")
        }))
        assert.deepStrictEqual(plans, [{ custom_plans: 5, generic_plans: 7 }])
      }).pipe(Effect.provide(domain)))
  }
)
