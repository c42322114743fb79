// Where the embedded PostgreSQL spends its time during a load, from `pg_stat_statements` (`BENCH_PG_STATEMENTS=1` of
// ai-main.ts): the statements' execution and planning time, buffers and WAL, per task submitted.
import { PostgresUrl } from "@atrium/adapters-pg"
import { Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { appendFileSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fmt } from "./percentiles.ts"

/** Loads the extension at the embedded cluster's next start (the cluster must be stopped; its server starts it). */
export const enableStatements = (dataDir: string) =>
  appendFileSync(join(dataDir, "postgres", "postgresql.auto.conf"), "\nshared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track_planning = on\n")

const Connection = Schema.fromJsonString(Schema.Struct({ port: Schema.Int, password: Schema.String }))

const Row = Schema.Struct({
  query: Schema.String,
  calls: Schema.Number,
  exec: Schema.Number,
  plan: Schema.Number,
  hit: Schema.Number,
  dirtied: Schema.Number,
  wal: Schema.Number
})

/** A client of the running embedded cluster, to reset the statistics and to read them per task. */
export const statementsOf = (dataDir: string) => {
  const saved = Schema.decodeUnknownSync(Connection)(readFileSync(join(dataDir, "postgres.json"), "utf8"))
  const url = `postgres://postgres:${encodeURIComponent(saved.password)}@127.0.0.1:${saved.port}/postgres`
  const run = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    Effect.runPromise(SqlClient.SqlClient.pipe(Effect.flatMap(f), Effect.provide(PostgresUrl(Redacted.make(url), { maxConnections: 1 }))))
  const reset = () =>
    run((sql) => Effect.andThen(sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`, sql`SELECT pg_stat_statements_reset()`))
  // The costliest statements since the reset, per task: total and top 14 by execution time.
  const report = async (label: string, tasks: number) => {
    const rows = await run((sql) =>
      sql`
        SELECT left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 70) AS query, calls::float8 AS calls,
          total_exec_time::float8 AS exec, total_plan_time::float8 AS plan, shared_blks_hit::float8 AS hit,
          shared_blks_dirtied::float8 AS dirtied, wal_bytes::float8 AS wal
        FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC
      `.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Row)))))
    const per = (n: number) => fmt((1000 * n) / Math.max(1, tasks), 1)
    const sum = (f: (r: typeof Row.Type) => number) => rows.reduce((a, r) => a + f(r), 0)
    return [
      `  ${label}: ${tasks} tasks; statements' time per task ${per(sum((r) => r.exec + r.plan))} µs ` +
      `(exec ${per(sum((r) => r.exec))}, plan ${per(sum((r) => r.plan))}), WAL ${fmt(sum((r) => r.wal) / Math.max(1, tasks))} B, ` +
      `buffers hit ${fmt(sum((r) => r.hit) / Math.max(1, tasks), 1)}, dirtied ${fmt(sum((r) => r.dirtied) / Math.max(1, tasks), 2)} per task`,
      ...rows.slice(0, 14).map((r) =>
        `    ${per(r.exec).padStart(7)} µs exec ${per(r.plan).padStart(6)} plan ${fmt(r.wal / Math.max(1, tasks)).padStart(6)} B WAL  ` +
        `${fmt(r.calls).padStart(7)} calls  ${r.query}`
      )
    ]
  }
  return { reset, report }
}
