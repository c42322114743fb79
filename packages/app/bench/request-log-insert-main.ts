// `DATABASE_URL=… node packages/app/bench/request-log-insert-main.ts`: what writing the request log costs per line, in a
// fresh schema of that (local) server: the PostgreSQL backend's CPU (from /proc) and this process's, over `ROUNDS`
// flushes of `LINES` lines of one key, as the buffer writes them at full load (ids made as the server makes them).
import { RequestLogRepositoryPg, runMigrations } from "@atrium/adapters-pg"
import { PostgresTestSchema, TestMigrationServices } from "@atrium/adapters-pg/testing"
import { ApiKeyId, RequestLogRepository, type RequestLogRecord, serverRequestId, WorkspaceId } from "@atrium/domain"
import { Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"

const lines = Number(process.env.LINES ?? 4000)
const rounds = Number(process.env.ROUNDS ?? 60)

// utime + stime of a process, in clock ticks (10 ms).
const ticks = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return Number(fields[11]) + Number(fields[12])
}
const decodePid = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ pid: Schema.Number })]))

const flush = (): [RequestLogRecord, ...Array<RequestLogRecord>] => {
  const now = Date.now()
  const line = (i: number): RequestLogRecord => ({
    workspaceId: WorkspaceId.make("ws_bench"),
    keyId: ApiKeyId.make("key_bench"),
    method: "GET",
    route: "/api/v1/workspaces/current",
    status: 200,
    durationMs: Math.round(Math.random() * 3000) / 1000,
    requestId: serverRequestId(now + (i >> 3), randomUUID()),
    at: now + (i >> 3)
  })
  const records: [RequestLogRecord, ...Array<RequestLogRecord>] = [line(0)]
  for (let i = 1; i < lines; i++) records.push(line(i))
  // Flat strings, as the server's ids are once their header has been written.
  for (const record of records) record.requestId.charCodeAt(0)
  return records
}

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* runMigrations
  const repo = yield* RequestLogRepository
  const [{ pid }] = yield* sql`SELECT pg_backend_pid() AS pid`.pipe(Effect.flatMap(decodePid))
  for (let i = 0; i < 10; i++) yield* repo.appendAll(flush())
  const flushes = Array.from({ length: rounds }, flush)
  const backendBefore = ticks(pid)
  const ownBefore = process.cpuUsage()
  for (const records of flushes) yield* repo.appendAll(records)
  const own = process.cpuUsage(ownBefore)
  const backend = ticks(pid) - backendBefore
  const total = lines * rounds
  console.log(`CPU per line: PostgreSQL ${(backend * 10_000 / total).toFixed(2)} µs, the writer ${((own.user + own.system) / total).toFixed(2)} µs (${total} lines)`)
})

await Effect.runPromise(program.pipe(
  Effect.provide(RequestLogRepositoryPg),
  Effect.provide(TestMigrationServices),
  Effect.provide(PostgresTestSchema(Redacted.make(process.env.DATABASE_URL ?? ""), { maxConnections: 1 }))
))
