// `node packages/app/bench/request-log-main.ts`: the request log's cost on the v1 read. Two servers on embedded
// databases, one with ATRIUM_REQUEST_LOG on and one off, loaded in turn (on off, off on, on off, …: neither always goes
// first) so a drift of the shared machine hits both alike; prints each round and the medians' ratio (target: on ≥ 0.95 × off),
// and the CPU each server and its database spent per request (steadier than req/s when other work shares the machine).
import autocannon from "autocannon"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { memberKey } from "./member-key.ts"
import { fmt, median } from "./percentiles.ts"
import { cpuSince, treeCpu } from "./process-tree-cpu.ts"
import { addressOf, type Started, start } from "./server-process.ts"

const connections = 64
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)

const keyOf = (baseUrl: string) => memberKey(baseUrl, "log")

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "atrium-request-log-bench-"))
  chmodSync(dir, 0o711)
  const servers: Array<Started> = []
  try {
    const targets = []
    // BENCH_MODES=off,on starts them the other way round; on,on is an A/A check of the set-up itself.
    for (const requestLog of (process.env.BENCH_MODES ?? "on,off").split(",")) {
      const env = { PORT: "0", DATABASE_URL: undefined, ATRIUM_DATA_DIR: join(dir, requestLog), ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000", ATRIUM_REQUEST_LOG: requestLog }
      const server = await start("packages/app/src/main.ts", env, [/Listening on/])
      servers.push(server)
      const baseUrl = addressOf(server)
      const headers = { authorization: `Bearer ${await keyOf(baseUrl)}` }
      const load = () => autocannon({ url: `${baseUrl}/api/v1/workspaces/current`, connections, duration: seconds, headers })
      await load() // warm-up: JIT, caches, pool
      targets.push({ requestLog, load, pid: server.child.pid ?? 0, rates: new Array<number>(), cpu: new Array<number>(), own: new Array<number>() })
    }
    for (let round = 1; round <= rounds; round++) {
      const line: Array<string> = []
      for (const target of round % 2 === 1 ? targets : [...targets].reverse()) {
        const before = treeCpu(target.pid)
        const result = await target.load()
        const spent = cpuSince(target.pid, before)
        // CPU microseconds per request, the server's own plus its PostgreSQL's.
        target.cpu.push(((spent.own + spent.rest) * 1000) / Math.max(1, result.requests.total))
        target.own.push((spent.own * 1000) / Math.max(1, result.requests.total))
        if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers with the request log ${target.requestLog}`)
        target.rates.push(result.requests.average)
        line.push(`${target.requestLog} ${fmt(result.requests.average)} req/s ${fmt(target.cpu.at(-1) ?? 0)} µs CPU/req (${fmt(target.own.at(-1) ?? 0)} the server's own)`)
      }
      console.log(`round ${round}: ${line.join(", ")}`)
    }
    // "on" before "off" whatever the start order.
    const ordered = [...targets].sort((a, b) => a.requestLog < b.requestLog ? 1 : a.requestLog > b.requestLog ? -1 : 0)
    const [on, off] = ordered.map((target) => median(target.rates))
    console.log(`\nGET /api/v1/workspaces/current, ${connections} connections, ${seconds} s a load, ${rounds} rounds interleaved`)
    console.log(`median req/s: request log on ${fmt(on ?? 0)}, off ${fmt(off ?? 0)}; on/off ${fmt((on ?? 0) / (off ?? 1), 3)} (target ≥ 0.95)`)
    const [cpuOn, cpuOff] = ordered.map((target) => median(target.cpu))
    const [ownOn, ownOff] = ordered.map((target) => median(target.own))
    console.log(`median CPU µs/request (server + its PostgreSQL): on ${fmt(cpuOn ?? 0)}, off ${fmt(cpuOff ?? 0)}; off/on ${fmt((cpuOff ?? 0) / (cpuOn ?? 1), 3)}`)
    console.log(`median CPU µs/request, the server's own: on ${fmt(ownOn ?? 0)}, off ${fmt(ownOff ?? 0)}; off/on ${fmt((ownOff ?? 0) / (ownOn ?? 1), 3)}`)
  } finally {
    for (const server of servers) await server.stop()
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
