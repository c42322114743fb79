// `npm run bench`: the real server against a trivial HttpApi endpoint and a bare node:http server, loaded in one run, on
// the embedded PostgreSQL and (with DATABASE_URL) on that server, plus webhook delivery, AI submission and mobile
// figures. Ratios matter more than absolutes on a shared machine.
import { WebhookTransportNode } from "@atrium/adapters-webhook"
import { layerPorts } from "@atrium/adapters-pg"
import { EmbeddedPostgresTemp } from "@atrium/adapters-pg/testing"
import { ApiKeys, SecretBox, Workspaces } from "@atrium/domain"
import autocannon from "autocannon"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { keyedAndUnkeyed } from "./ai-bench.ts"
import { freshDatabase } from "./fresh-database.ts"
import { mobileBench } from "./mobile-bench.ts"
import { fmt, percentile } from "./percentiles.ts"
import { peakRssOf, watchTree } from "./process-tree-memory.ts"
import { NodePrimitives } from "../src/node-secret-hasher.ts"
import { seeded } from "./seeded-workspace.ts"
import { addressOf, start } from "./server-process.ts"
import { webhookBench } from "./webhook-bench.ts"
import { Domain, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"

const connections = 64
const seconds = Number(process.env.BENCH_SECONDS ?? 10)

const load = (url: string, headers: Record<string, string>) => autocannon({ url, connections, duration: seconds, headers })

// The app's digests (node:crypto), for the migrations and the services alike.
const primitives = NodePrimitives()

// In-process key verification over the Postgres ports (an embedded server in a temporary folder): the per-request cost of authentication.
const keyVerification = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Bench" })
  const { plaintext } = yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "bench" })
  const keys = yield* ApiKeys
  const samples: Array<number> = []
  for (let i = 0; i < 20_000; i++) {
    const t0 = performance.now()
    yield* keys.authenticate(plaintext)
    samples.push(performance.now() - t0)
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) }
}).pipe(
  Effect.provide(Domain.layerOver(layerPorts(EmbeddedPostgresTemp()).pipe(Layer.provideMerge(Layer.merge(primitives, SecretBox.layerMemory))), {
    replace: Layer.merge(primitives, WebhookTransportNode.layerWith({ allowNetworks: [] }))
  }))
)

const row = (label: string, result: { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number }) =>
  `${label.padEnd(42)}${[fmt(result.requests.average), fmt(result.latency.p50, 1), fmt(result.latency.p99, 1), String(result.non2xx)].map((c) => c.padStart(10)).join("")}`

/** Where the server's data lives for one set of HTTP figures. */
interface Target {
  readonly label: string
  readonly env: Record<string, string | undefined>
  /** The key to load with, and whether the process tree's memory is the figure (the embedded default only). */
  readonly key: string
  readonly wholeTree: boolean
}

// The HTTP figures on one database: the v1 read against the trivial HttpApi endpoint and bare node:http (started
// fresh, loaded back to back), the mobile read, sign-ins, AI submissions and the peak memory under that load.
const httpFigures = async (target: Target, extra: ReadonlyArray<string>) => {
  const atrium = await start("packages/app/src/main.ts", { PORT: "0", ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000", ...target.env }, [/Listening on/])
  const baseUrl = addressOf(atrium)
  // The whole tree under load: the server and the embedded PostgreSQL it started (postmaster and backends).
  const memory = watchTree(atrium.child.pid ?? 0)
  const lines: Array<string> = []
  try {
    const url = `${baseUrl}/api/v1/workspaces/current`
    const headers = { authorization: `Bearer ${target.key}` }
    const body = await (await fetch(url, { headers })).text()
    const bare = await start("packages/app/bench/bare-server.ts", { PORT: "0", BENCH_BODY: body }, [/listening \d+/])
    const barePort = /listening (\d+)/.exec(bare.output())?.[1] ?? ""
    const trivial = await start("packages/app/bench/trivial-httpapi-server.ts", { PORT: "0", BENCH_BODY: body }, [/listening \d+/])
    const trivialPort = /listening (\d+)/.exec(trivial.output())?.[1] ?? ""
    // The v1 read's work written by hand inside HttpApi's two seams: the most a front door on this framework reaches.
    const floor = await start("packages/app/bench/floor-httpapi-server.ts", { PORT: "0", BENCH_BODY: body, BENCH_FLOOR: "product" }, [/listening \d+/])
    const floorPort = /listening (\d+)/.exec(floor.output())?.[1] ?? ""
    try {
      await load(url, headers) // warm-up: JIT, caches, connection pools
      await load(`http://127.0.0.1:${trivialPort}/`, {})
      await load(`http://127.0.0.1:${floorPort}/`, headers)
      const real = await load(url, headers)
      const ceiling = await load(`http://127.0.0.1:${trivialPort}/`, {})
      const baseline = await load(`http://127.0.0.1:${barePort}/`, {})
      const floorRead = await load(`http://127.0.0.1:${floorPort}/`, headers)
      const mobile = await mobileBench(baseUrl, seconds)
      const submissions = await keyedAndUnkeyed(baseUrl, target.key, seconds, atrium.child.pid)
      lines.push(`\n${target.label}: ${connections} connections, ${seconds} s each, one run on this machine\n`)
      lines.push(`${"".padEnd(42)}${["req/s", "p50 ms", "p99 ms", "non-2xx"].map((c) => c.padStart(10)).join("")}`)
      lines.push(row("atrium GET /api/v1/workspaces/current", real))
      lines.push(row("atrium GET /api/mobile/organization", mobile.organization))
      lines.push(row("trivial HttpApi endpoint, same JSON", ceiling))
      lines.push(row("bare node:http, same JSON", baseline))
      lines.push(row("v1's work by hand on HttpApi (floor)", floorRead))
      lines.push("")
      lines.push(`throughput ratio v1/trivial HttpApi     ${fmt(real.requests.average / ceiling.requests.average, 2)}  (target ≥ 0.9)`)
      lines.push(`throughput ratio v1/bare                ${fmt(real.requests.average / baseline.requests.average, 2)}  (target ≥ 0.5)`)
      lines.push(`throughput ratio trivial HttpApi/bare   ${fmt(ceiling.requests.average / baseline.requests.average, 2)}  (the framework's ceiling)`)
      lines.push(`throughput ratio floor/trivial HttpApi  ${fmt(floorRead.requests.average / ceiling.requests.average, 2)}  (the most any front door on HttpApi reaches; floor/bare ${fmt(floorRead.requests.average / baseline.requests.average, 2)})`)
      lines.push(`throughput ratio v1/floor               ${fmt(real.requests.average / floorRead.requests.average, 2)}  (what Effect's services per request cost the v1 read)`)
      lines.push(`p99 ratio v1/bare                       ${fmt(real.latency.p99 / Math.max(baseline.latency.p99, 1), 2)}  (target ≤ 2)`)
      lines.push(`throughput ratio mobile/v1              ${fmt(mobile.organization.requests.average / real.requests.average, 2)}  (target ≥ 0.6)`)
      lines.push(...extra)
      lines.push(`peak RSS of the server under load       ${fmt(peakRssOf(atrium.child.pid))} MB  (VmHWM of the server process alone)`)
      if (target.wholeTree) {
        const tree = memory.peak()
        lines.push(`peak RSS of the whole process tree      ${fmt(tree.rss)} MB, PSS ${fmt(tree.pss)} MB  (target ≤ 250 MB; server + ${tree.processes - 1} PostgreSQL processes, sampled every 100 ms)`)
      }
      lines.push(mobile.signIn)
      lines.push(...submissions.lines)
    } finally {
      await bare.stop()
      await trivial.stop()
      await floor.stop()
    }
  } finally {
    memory.stop()
    await atrium.stop()
  }
  return lines
}

// The same figures on a fresh database of the DATABASE_URL server, seeded in-process (no demo workspace there).
const onPostgres = async (url: string) => {
  const database = await freshDatabase(url, "http")
  try {
    const secretKey = randomBytes(32).toString("base64")
    const { key } = await seeded({ _tag: "Url", url: Redacted.make(database.url) }, secretKey)
    return await httpFigures({ label: "Postgres at DATABASE_URL", env: { DATABASE_URL: database.url, ATRIUM_SECRET_KEY: secretKey }, key, wholeTree: false }, [])
  } finally {
    await database.drop()
  }
}

const main = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "atrium-bench-"))
  // The embedded server runs as the `postgres` account under root and must pass through this folder.
  chmodSync(dataDir, 0o711)
  const embedded = { DATABASE_URL: undefined, ATRIUM_DATA_DIR: join(dataDir, "data") }
  // The first start creates the database (initdb) and prints the demo key; start-to-listening is measured on the next.
  const first = await start("packages/app/src/main.ts", { PORT: "0", ...embedded }, [/Listening on/, /sk_live_[0-9A-Za-z]{39}/])
  const key = /sk_live_[0-9A-Za-z]{39}/.exec(first.output())?.[0] ?? ""
  await first.stop()
  const restart = await start("packages/app/src/main.ts", { PORT: "0", ...embedded }, [/Listening on/])
  await restart.stop()
  const verification = await Effect.runPromise(keyVerification)
  const lines = await httpFigures({ label: "Embedded PostgreSQL (the default)", env: embedded, key, wholeTree: true }, [
    `key verification in-process p50/p99    ${fmt(verification.p50, 3)} / ${fmt(verification.p99, 3)} ms  (target p99 ≤ 1 ms)`,
    `start to listening (existing data)      ${fmt(restart.startMillis)} ms  (target ≤ 1500 ms); first start ${fmt(first.startMillis)} ms (target ≤ 3000 ms)`
  ])
  const url = process.env.DATABASE_URL
  lines.push(...(url === undefined || url === "" ? ["\nHTTP figures on Postgres: set DATABASE_URL to measure them too"] : await onPostgres(url)))
  for (const line of lines) console.log(line)
  for (const line of await webhookBench(join(dataDir, "webhooks"))) console.log(line)
  rmSync(dataDir, { recursive: true, force: true })
}

await main()
