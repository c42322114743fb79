// `node packages/app/bench/ai-main.ts`: only the AI submission part of `npm run bench`, on a temporary embedded database
// and, when DATABASE_URL is set, on that Postgres; then the SQL statements one submission costs (counted from spans).
// BENCH_SECONDS (default 10) sets the load time, BENCH_ROUNDS (default 3) the interleaved rounds. One run on a shared
// machine: compare ratios, not absolutes. BENCH_FIXED_RATE sets the open-loop rate (a list, `100,250,500`, loads each in
// turn). BENCH_PG_STATEMENTS=1 instead loads unkeyed then keyed once each on the
// embedded database with `pg_stat_statements` on (at BENCH_FIXED_RATE a second when set), and tells what each
// statement cost per task.
import { PostgresUrl } from "@atrium/adapters-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AppConfig } from "../src/app-config.ts"
import autocannon from "autocannon"
import { fixedRateBench, keyedAndUnkeyed, submissionBench } from "./ai-bench.ts"
import { enableStatements, statementsOf } from "./pg-statements.ts"
import { fmt } from "./percentiles.ts"
import { seeded } from "./seeded-workspace.ts"
import { addressOf, start } from "./server-process.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 10)

const profiling = process.env.BENCH_PG_STATEMENTS === "1"

// Each statement's cost per task, unkeyed then keyed, after a warm-up of each (the embedded database only).
const profile = async (baseUrl: string, key: string, serverPid: number | undefined, dataDir: string) => {
  const statements = statementsOf(dataDir)
  await submissionBench(baseUrl, key, 2)
  await submissionBench(baseUrl, key, 2, undefined, true)
  const lines: Array<string> = []
  for (const keyed of [false, true]) {
    await statements.reset()
    const rate = process.env.BENCH_FIXED_RATE
    const figures = rate === undefined
      ? await submissionBench(baseUrl, key, seconds, serverPid, keyed)
      : await fixedRateBench(baseUrl, key, seconds, Number(rate), serverPid, keyed)
    lines.push(...await statements.report(keyed ? "a fresh key each" : "no Idempotency-Key", Math.round(figures.perSecond * seconds)))
  }
  return lines
}

const run = async (label: string, database: AppConfig["database"], env: Record<string, string | undefined>) => {
  const secretKey = randomBytes(32).toString("base64")
  const { key, statements } = await seeded(database, secretKey)
  if (profiling && database._tag === "Embedded") enableStatements(database.dataDir)
  const server = await start(
    "packages/app/src/main.ts",
    { PORT: "0", ATRIUM_SECRET_KEY: secretKey, ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000", ...env },
    [/Listening on/]
  )
  try {
    const baseUrl = addressOf(server)
    if (profiling && database._tag === "Embedded") return [`${label}:`, ...await profile(baseUrl, key, server.child.pid, database.dataDir)]
    const { lines, plain } = await keyedAndUnkeyed(baseUrl, key, seconds, server.child.pid)
    // The same connections on an authenticated read: how much of the machine the HTTP path alone leaves.
    const read = await autocannon({ url: `${baseUrl}/api/v1/workspaces/current`, connections: 32, duration: seconds, headers: { authorization: `Bearer ${key}` } })
    return [
      `${label}:`,
      ...lines,
      `  GET /workspaces/current, ${label.padEnd(9)} ${fmt(read.requests.average)} req/s, p99 ${fmt(read.latency.p99, 1)} ms; unkeyed submissions/read ${fmt(plain.perSecond / read.requests.average, 2)}`,
      `  SQL per submission, ${label.padEnd(9)} ${statements}`
    ]
  } finally {
    await server.stop()
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "atrium-ai-bench-"))
// The embedded server runs as the `postgres` account under root and must pass through this folder.
chmodSync(dataDir, 0o711)
const lines: Array<string> = []
try {
  const data = join(dataDir, "data")
  lines.push(...await run("embedded", { _tag: "Embedded", dataDir: data }, { DATABASE_URL: undefined, ATRIUM_DATA_DIR: data }))
  const base = process.env.DATABASE_URL
  if (base !== undefined && base.length > 0) {
    // A schema of its own (the database is shared with tests and other benches), dropped afterwards.
    const schema = `atrium_ai_bench_${randomBytes(6).toString("hex")}`
    const admin = (statement: string) =>
      Effect.runPromise(SqlClient.SqlClient.pipe(
        Effect.flatMap((sql) => sql.unsafe(statement)),
        Effect.provide(PostgresUrl(Redacted.make(base), { maxConnections: 1 }))
      ))
    await admin(`CREATE SCHEMA ${schema}`)
    const url = new URL(base)
    url.searchParams.set("options", `-c search_path=${schema}`)
    try {
      lines.push(...await run("Postgres", { _tag: "Url", url: Redacted.make(url.href) }, { DATABASE_URL: url.href }))
    } finally {
      await admin(`DROP SCHEMA ${schema} CASCADE`)
    }
  } else {
    lines.push("AI task submissions on Postgres: set DATABASE_URL to measure them too")
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
for (const line of lines) console.log(line)
