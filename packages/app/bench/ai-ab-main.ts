// `node packages/app/bench/ai-ab-main.ts`: unkeyed AI submissions against two servers side by side, each on its own
// embedded PostgreSQL — A from the checkout at BENCH_BASE_ROOT (`self`: this one), B from this checkout — loaded in turn,
// the order alternating per round, with B ÷ A per round and its median for each figure. Open loop at BENCH_FIXED_RATE
// a second (default 100), or closed loop (32 connections) with BENCH_CLOSED=1; BENCH_ROUNDS (4), BENCH_SECONDS (8);
// BENCH_ENV_A / BENCH_ENV_B, JSON objects, add to each server's environment (e.g. `{"ATRIUM_WORKERS":"false"}`).
// Rounds swing ±10 % on a shared machine: run an A/A pair (BENCH_BASE_ROOT=self) beside a result.
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Schema } from "effect"
import { fixedRateBench, submissionBench, type SubmissionFigures } from "./ai-bench.ts"
import { median } from "./percentiles.ts"
import { seeded } from "./seeded-workspace.ts"
import { addressOf, start } from "./server-process.ts"

const rounds = Number(process.env.BENCH_ROUNDS ?? 4)
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const rate = Number(process.env.BENCH_FIXED_RATE ?? 100)
const closed = process.env.BENCH_CLOSED === "1"
const base = process.env.BENCH_BASE_ROOT ?? "self"
const Env = Schema.fromJsonString(Schema.Record(Schema.String, Schema.String))
const envOf = (name: string) => Schema.decodeUnknownSync(Env)(process.env[name] ?? "{}")
const dirs: Array<string> = []
const boot = async (cwd: string | undefined, extra: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "atrium-ai-ab-"))
  dirs.push(dataDir)
  chmodSync(dataDir, 0o711)
  const data = join(dataDir, "data")
  const secretKey = randomBytes(32).toString("base64")
  const { key } = await seeded({ _tag: "Embedded", dataDir: data }, secretKey)
  const server = await start("packages/app/src/main.ts", {
    PORT: "0", ATRIUM_SECRET_KEY: secretKey, ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000", DATABASE_URL: undefined, ATRIUM_DATA_DIR: data, ...extra
  }, [/Listening on/], cwd)
  return { server, key, url: addressOf(server) }
}
const a = await boot(base === "self" ? undefined : base, envOf("BENCH_ENV_A"))
const b = await boot(undefined, envOf("BENCH_ENV_B"))
const cpu = (f: SubmissionFigures) => (f.cpu?.server ?? Number.NaN) + (f.cpu?.database ?? Number.NaN)
try {
  // Warm-up: JIT, pools.
  for (const s of [a, b]) await submissionBench(s.url, s.key, 2)
  const rows: Array<{ a: SubmissionFigures; b: SubmissionFigures }> = []
  for (let r = 0; r < rounds; r++) {
    const load = (s: typeof a) => closed ? submissionBench(s.url, s.key, seconds, s.server.child.pid) : fixedRateBench(s.url, s.key, seconds, rate, s.server.child.pid)
    const first = r % 2 === 0 ? a : b
    const firstFigures = await load(first)
    const secondFigures = await load(first === a ? b : a)
    const row = first === a ? { a: firstFigures, b: secondFigures } : { a: secondFigures, b: firstFigures }
    rows.push(row)
    const line = (f: SubmissionFigures) =>
      `${f.perSecond.toFixed(0)}/s p50 ${f.p50.toFixed(1)} p99 ${f.p99.toFixed(1)} CPU/task ${cpu(f).toFixed(0)} µs (server ${f.cpu?.server.toFixed(0)}, PostgreSQL ${f.cpu?.database.toFixed(0)})`
    console.log(`round ${r}: A ${line(row.a)} | B ${line(row.b)}`)
  }
  const ratio = (f: (x: SubmissionFigures) => number) => rows.map((r) => f(r.b) / f(r.a))
  const show = (name: string, f: (x: SubmissionFigures) => number) => {
    const rs = ratio(f)
    console.log(`${name}: A median ${median(rows.map((r) => f(r.a))).toFixed(1)}, B median ${median(rows.map((r) => f(r.b))).toFixed(1)}, B÷A ${median(rs).toFixed(2)} (${rs.map((x) => x.toFixed(2)).join(", ")})`)
  }
  show("per second", (f) => f.perSecond)
  show("p50", (f) => f.p50)
  show("p99", (f) => f.p99)
  show("cpu per task", cpu)
  show("server cpu", (f) => f.cpu?.server ?? Number.NaN)
  show("pg cpu", (f) => f.cpu?.database ?? Number.NaN)
} finally {
  await a.server.stop()
  await b.server.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
