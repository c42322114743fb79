// `node packages/app/bench/mobile-main.ts`: only GET /api/mobile/organization against GET /api/v1/workspaces/current,
// loaded in one run on one server, with the whole process tree's peak memory. The embedded default in a temporary
// folder; with BENCH_DATABASE_URL, a fresh database made (and dropped) on that server instead.
import autocannon, { type Result } from "autocannon"
import { randomBytes } from "node:crypto"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshDatabase } from "./fresh-database.ts"
import { mobileBench } from "./mobile-bench.ts"
import { fmt } from "./percentiles.ts"
import { peakRssOf, watchTree } from "./process-tree-memory.ts"
import { addressOf, start } from "./server-process.ts"

const connections = 64
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const json = { "content-type": "application/json" }

const load = (url: string, headers: Record<string, string>) => autocannon({ url, connections, duration: seconds, headers })

const row = (label: string, result: Result) =>
  `${label.padEnd(42)}${[fmt(result.requests.average), fmt(result.latency.p50, 1), fmt(result.latency.p99, 1), String(result.non2xx)].map((c) => c.padStart(10)).join("")}`

const main = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "atrium-mobile-bench-"))
  chmodSync(dataDir, 0o711)
  const url = process.env.BENCH_DATABASE_URL
  const database = url === undefined || url === "" ? undefined : await freshDatabase(url, "mobile")
  const env = {
    PORT: "0",
    DATABASE_URL: database?.url,
    ATRIUM_DATA_DIR: join(dataDir, "data"),
    ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000",
    ATRIUM_WORKERS: process.env.BENCH_WORKERS,
    ATRIUM_SECRET_KEY: database === undefined ? undefined : randomBytes(32).toString("base64"),
    // e.g. `--cpu-prof` or V8 heap flags, for the server only.
    NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS
  }
  const atrium = await start("packages/app/src/main.ts", env, [/Listening on/])
  const pid = atrium.child.pid ?? 0
  const baseUrl = addressOf(atrium)
  const memory = watchTree(pid)
  try {
    // A member's own workspace key, made through the session routes (works on either database).
    const signUp = await fetch(`${baseUrl}/api/auth/sign-up`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: `keys-${Date.now()}@example.com`, password: "correct horse battery", name: "Keys" })
    })
    const session: { session?: { accessToken?: string } } = await signUp.json()
    const created = await fetch(`${baseUrl}/api/mobile/api-keys`, {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${session.session?.accessToken ?? ""}` },
      body: JSON.stringify({ name: "bench", scopes: ["read"] })
    })
    const keyBody: { key?: string } = await created.json()
    const key = keyBody.key ?? ""
    if (key === "") throw new Error(`no key: ${created.status} ${JSON.stringify(keyBody)}`)
    const v1 = `${baseUrl}/api/v1/workspaces/current`
    const headers = { authorization: `Bearer ${key}` }
    await load(v1, headers) // warm-up: JIT, caches, pool
    const mobile = await mobileBench(baseUrl, seconds) // the first is warm-up as well
    const again = await mobileBench(baseUrl, seconds)
    const real = await load(v1, headers)
    const peak = memory.peak()
    console.log(`\n${connections} connections, ${seconds} s each, one run, ${database === undefined ? "embedded PostgreSQL" : "Postgres at BENCH_DATABASE_URL"}\n`)
    console.log(`${"".padEnd(42)}${["req/s", "p50 ms", "p99 ms", "non-2xx"].map((c) => c.padStart(10)).join("")}`)
    console.log(row("atrium GET /api/v1/workspaces/current", real))
    console.log(row("atrium GET /api/mobile/organization", again.organization))
    console.log(row("  (first, warm-up)", mobile.organization))
    console.log(`throughput ratio mobile/v1              ${fmt(again.organization.requests.average / real.requests.average, 2)}  (target ≥ 0.6)`)
    console.log(`peak RSS, server alone (VmHWM)          ${fmt(peakRssOf(pid))} MB`)
    console.log(`peak RSS, whole tree (sampled)          ${fmt(peak.rss)} MB; PSS ${fmt(peak.pss)} MB; ${peak.processes} processes`)
    console.log(again.signIn)
  } finally {
    memory.stop()
    await atrium.stop()
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
