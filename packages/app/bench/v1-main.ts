// `node packages/app/bench/v1-main.ts`: only the v1 read (GET /api/v1/workspaces/current, a Bearer API key) against
// the trivial HttpApi endpoint and bare node:http answering the same JSON, in interleaved rounds (the order turns each
// round), with each server's own CPU per request from /proc. BENCH_ROOTS=/path/a,/path/b starts one real server per
// checkout of the project (an A/B of a change: the first is "a"), BENCH_ENV_0, BENCH_ENV_1… add `NAME=value` words to the
// environment of the first, second… of them (an A/B of a switch, on one root given twice); BENCH_TOGETHER=1 loads those at the same time
// instead of in turn; BENCH_CEILINGS=0 leaves out trivial and bare; BENCH_FLOORS=0 leaves out the floors (the trivial
// endpoint behind a minimal envelope, a minimal gate, both, and both doing the v1 read's work by hand:
// `floor-httpapi-server.ts`); BENCH_SERVER_NODE_OPTIONS (e.g. `--cpu-prof
// --cpu-prof-dir=/tmp/prof`) goes to the real servers only; BENCH_PERF_DIR records each server's on-CPU samples with
// `perf` (kernel included) during the first round, one file per target.
import autocannon, { type Result } from "autocannon"
import { spawn } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { memberKey } from "./member-key.ts"
import { fmt, median } from "./percentiles.ts"
import { cpuSince, treeCpu } from "./process-tree-cpu.ts"
import { peakRssOf } from "./process-tree-memory.ts"
import { addressOf, type Started, start } from "./server-process.ts"

const connections = 64
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const together = process.env.BENCH_TOGETHER === "1"
const ceilings = process.env.BENCH_CEILINGS !== "0"
const floors = ceilings && process.env.BENCH_FLOORS !== "0"
const here = join(import.meta.dirname, "..", "..", "..")
const roots = (process.env.BENCH_ROOTS ?? here).split(",")
const perfDir = process.env.BENCH_PERF_DIR

// `perf record` of one process for most of a load (perf's own start-up and the load's ramp-up left out).
const recorded = (label: string, pid: number, load: Promise<Result>): Promise<Result> => {
  if (perfDir === undefined) return load
  const perf = spawn("perf", ["record", "-F", "1999", "-g", "-p", String(pid), "-o", join(perfDir, `${label.replace(" ", "-")}.data`), "--", "sleep", String(seconds - 1)], { stdio: "ignore" })
  return Promise.all([load, new Promise((done) => perf.on("exit", done))]).then(([result]) => result)
}

const keyOf = (baseUrl: string) => memberKey(baseUrl, "v1")

interface Target {
  readonly label: string
  readonly real: boolean
  readonly load: () => Promise<Result>
  readonly pid: number
  readonly rates: Array<number>
  readonly cpu: Array<number>
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "atrium-v1-bench-"))
  chmodSync(dir, 0o711)
  const servers: Array<Started> = []
  const targets: Array<Target> = []
  const target = (label: string, real: boolean, server: Started, url: string, headers: Record<string, string>): Target => ({
    label,
    real,
    load: () => autocannon({ url, connections, duration: seconds, headers }),
    pid: server.child.pid ?? 0,
    rates: [],
    cpu: []
  })
  try {
    let body = ""
    for (const [i, root] of roots.entries()) {
      const env = {
        PORT: "0",
        DATABASE_URL: undefined,
        ATRIUM_DATA_DIR: join(dir, `data-${i}`),
        ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000",
        NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS,
        ...Object.fromEntries((process.env[`BENCH_ENV_${i}`] ?? "").split(" ").filter((word) => word.includes("=")).map((word) => word.split("=", 2)))
      }
      const server = await start("packages/app/src/main.ts", env, [/Listening on/], root)
      servers.push(server)
      const baseUrl = addressOf(server)
      const url = `${baseUrl}/api/v1/workspaces/current`
      const headers = { authorization: `Bearer ${await keyOf(baseUrl)}` }
      body = await (await fetch(url, { headers })).text()
      targets.push(target(roots.length === 1 ? "v1" : `v1 ${String.fromCharCode(97 + i)}`, true, server, url, headers))
    }
    const ceiling = async (label: string, script: string, env: Record<string, string> = {}) => {
      const server = await start(script, { PORT: "0", BENCH_BODY: body, ...env }, [/listening \d+/])
      servers.push(server)
      const port = /listening (\d+)/.exec(server.output())?.[1] ?? ""
      // The same bearer header as the real server's: the floors read it, the others ignore it.
      targets.push(target(label, false, server, `http://127.0.0.1:${port}/`, { authorization: "Bearer floor" }))
    }
    if (ceilings) {
      await ceiling("trivial", "packages/app/bench/trivial-httpapi-server.ts")
      await ceiling("bare", "packages/app/bench/bare-server.ts")
    }
    if (floors) {
      for (const floor of ["envelope", "gate", "both", "product"]) {
        await ceiling(`floor ${floor}`, "packages/app/bench/floor-httpapi-server.ts", { BENCH_FLOOR: floor })
      }
    }
    // Warm-up: JIT, caches, pools.
    for (const t of targets) await t.load()
    const measure = async (t: Target, before: ReadonlyMap<number, number>, result: Result) => {
      const spent = cpuSince(t.pid, before)
      if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from ${t.label}`)
      t.rates.push(result.requests.average)
      // The server process's own CPU microseconds per request (not its embedded PostgreSQL's).
      t.cpu.push((spent.own * 1000) / Math.max(1, result.requests.total))
      return `${t.label} ${fmt(result.requests.average)} req/s ${fmt(t.cpu.at(-1) ?? 0, 1)} µs`
    }
    for (let round = 1; round <= rounds; round++) {
      const line: Array<string> = []
      // The order turns each round, so no target always runs first (or last) on a drifting machine.
      const shift = (round - 1) % targets.length
      const ordered = [...targets.slice(shift), ...targets.slice(0, shift)]
      if (together) {
        const real = ordered.filter((t) => t.real)
        const befores = real.map((t) => treeCpu(t.pid))
        const results = await Promise.all(real.map((t) => round === 1 ? recorded(t.label, t.pid, t.load()) : t.load()))
        for (const [i, t] of real.entries()) line.push(await measure(t, befores[i] ?? new Map(), results[i] as Result))
      }
      for (const t of ordered.filter((t) => !together || !t.real)) {
        const before = treeCpu(t.pid)
        line.push(await measure(t, before, await (round === 1 ? recorded(t.label, t.pid, t.load()) : t.load())))
      }
      console.log(`round ${round}: ${line.join(", ")}`)
    }
    console.log(`\n${connections} connections, ${seconds} s a load, ${rounds} rounds${together ? ", real servers loaded together" : " interleaved"}`)
    for (const t of targets) {
      console.log(`${t.label.padEnd(14)} median ${fmt(median(t.rates))} req/s, ${fmt(median(t.cpu), 1)} µs server CPU/request, peak RSS ${fmt(peakRssOf(t.pid))} MB`)
    }
    const perRound = (a: Target, b: Target, of: (t: Target) => Array<number>) => median(of(a).map((x, i) => x / (of(b)[i] ?? 1)))
    const trivial = targets.find((t) => t.label === "trivial")
    const bare = targets.find((t) => t.label === "bare")
    const floor = targets.find((t) => t.label === "floor product")
    // The floors first (no front door on HttpApi beats them), then each real server, against trivial and bare.
    for (const t of targets.filter((t) => t.label.startsWith("floor")).concat(targets.filter((t) => t.real))) {
      if (trivial !== undefined) console.log(`${t.label}/trivial req/s ${fmt(perRound(t, trivial, (x) => x.rates), 2)} (target ≥ 0.9), CPU/request ${fmt(perRound(t, trivial, (x) => x.cpu), 2)}`)
      if (bare !== undefined) console.log(`${t.label}/bare    req/s ${fmt(perRound(t, bare, (x) => x.rates), 2)} (target ≥ 0.5), CPU/request ${fmt(perRound(t, bare, (x) => x.cpu), 2)}`)
      if (floor !== undefined && t.real) console.log(`${t.label}/floor product req/s ${fmt(perRound(t, floor, (x) => x.rates), 2)}, CPU/request ${fmt(perRound(t, floor, (x) => x.cpu), 2)}`)
    }
    // Each real server against the first (b against a, c against a): per-round ratios, then their median.
    const [a, ...others] = targets.filter((t) => t.real)
    if (a !== undefined) {
      for (const b of others) {
        console.log(`${b.label} ÷ ${a.label} per round: CPU/request ${a.cpu.map((x, r) => fmt((b.cpu[r] ?? 0) / x, 2)).join(", ")}; median ${fmt(perRound(b, a, (x) => x.cpu), 3)}; req/s median ${fmt(perRound(b, a, (x) => x.rates), 3)}`)
      }
    }
  } finally {
    for (const server of servers) await server.stop()
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
