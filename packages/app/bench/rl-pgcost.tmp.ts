import { ApiKeyId, RequestLogRepository, type RequestLogRecord, serverRequestId, WorkspaceId } from "@atrium/domain"
import { RequestLogRepositoryPg, runMigrations } from "@atrium/adapters-pg"
import { PostgresTestSchema, TestMigrationServices } from "@atrium/adapters-pg/testing"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"

const ticks = (pid: number) => { const s = readFileSync(`/proc/${pid}/stat`, "utf8"); const f = s.slice(s.lastIndexOf(")") + 2).split(" "); return Number(f[11]) + Number(f[12]) }
const lines = Number(process.env.LINES ?? 4000)
const rounds = Number(process.env.ROUNDS ?? 60)
const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* runMigrations
  const repo = yield* RequestLogRepository
  const [{ pid }] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
  const make = (): [RequestLogRecord, ...Array<RequestLogRecord>] => {
    const now = Date.now()
    const one = (i: number): RequestLogRecord => ({ workspaceId: WorkspaceId.make("ws_bench"), keyId: ApiKeyId.make("key_bench"), method: "GET", route: "/api/v1/workspaces/current", status: 200, durationMs: Math.round(Math.random() * 3000) / 1000, requestId: serverRequestId(now + (i >> 3), randomUUID()), at: now + (i >> 3) })
    return [one(0), ...Array.from({ length: lines - 1 }, (_, i) => one(i + 1))]
  }
  for (let i = 0; i < 10; i++) yield* repo.appendAll(make())
  const batches = Array.from({ length: rounds }, make)
  const pg0 = ticks(pid); const cpu0 = process.cpuUsage(); const t0 = performance.now()
  for (const batch of batches) yield* repo.appendAll(batch)
  const cpu = process.cpuUsage(cpu0); const pg = ticks(pid) - pg0
  const n = lines * rounds
  console.log(`per line: PostgreSQL ${(pg * 10000 / n).toFixed(2)} µs, this process ${((cpu.user + cpu.system) / n).toFixed(2)} µs, wall ${((performance.now() - t0) * 1000 / n).toFixed(2)} µs`)
  const [{ size }] = yield* sql<{ size: string }>`SELECT pg_size_pretty(pg_total_relation_size('request_log_batches')) AS size`
  console.log("table+toast+indexes", size)
})
await Effect.runPromise(program.pipe(Effect.provide(RequestLogRepositoryPg), Effect.provide(TestMigrationServices), Effect.provide(PostgresTestSchema(Redacted.make(process.env.DATABASE_URL ?? ""), { maxConnections: 1 })), Effect.provide(Layer.empty)))
