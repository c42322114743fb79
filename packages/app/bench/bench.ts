// `npm run bench`: the real server (embedded PGlite) against a bare node:http server, loaded in one run.
import { layerEmbedded } from "@atrium/adapters-pg"
import { WebhookTransportNode } from "@atrium/adapters-webhook"
import { ApiKeys, DomainServices, ModelCatalog, Primitives, SecretBox, systemActor, Workspaces } from "@atrium/domain"
import autocannon from "autocannon"
import { Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..", "..")
const connections = 64
const seconds = Number(process.env.BENCH_SECONDS ?? 10)

interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  readonly startMillis: number
}

const start = (script: string, env: Record<string, string>, ready: ReadonlyArray<RegExp>): Promise<Started> =>
  new Promise((resolve, reject) => {
    const began = performance.now()
    const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (ready.every((pattern) => pattern.test(output))) resolve({ child, output: () => output, startMillis: performance.now() - began })
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.on("exit", (code) => reject(new Error(`${script} exited with ${code}: ${output}`)))
  })

const peakRss = (pid: number | undefined) => {
  const status = pid === undefined ? "" : readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /VmHWM:\s+(\d+) kB/.exec(status)
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

const load = (url: string, headers: Record<string, string>) => autocannon({ url, connections, duration: seconds, headers })

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

// In-process key verification over the Postgres ports (PGlite in memory): the per-request cost of authentication.
const keyVerification = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create({ name: "Bench", actor: systemActor("bench") })
  const { plaintext } = yield* (yield* ApiKeys).create({ workspaceId: workspace.id, name: "bench", actor: systemActor("bench") })
  const keys = yield* ApiKeys
  const samples: Array<number> = []
  for (let i = 0; i < 20_000; i++) {
    const t0 = performance.now()
    yield* keys.authenticate(plaintext)
    samples.push(performance.now() - t0)
  }
  samples.sort((a, b) => a - b)
  return { p50: samples[Math.floor(samples.length * 0.5)] ?? 0, p99: samples[Math.floor(samples.length * 0.99)] ?? 0 }
}).pipe(
  Effect.provide(DomainServices.pipe(Layer.provideMerge(Layer.mergeAll(
    layerEmbedded({}),
    Primitives(),
    ModelCatalog.layer,
    SecretBox.layerRandom,
    WebhookTransportNode.layer({ allowNetworks: [] })
  ))))
)

const main = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "atrium-bench-"))
  const atrium = await start(
    "packages/app/src/main.ts",
    { PORT: "3917", ATRIUM_DATA_DIR: dataDir, ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000" },
    [/Listening on/, /sk_live_[0-9A-Za-z]{39}/]
  )
  try {
    const key = /sk_live_[0-9A-Za-z]+/.exec(atrium.output())?.[0]
    if (key === undefined) throw new Error("the server printed no demo key")
    const url = "http://127.0.0.1:3917/api/v1/workspaces/current"
    const headers = { authorization: `Bearer ${key}` }
    const body = await (await fetch(url, { headers })).text()
    const bare = await start("packages/app/bench/bare-server.ts", { PORT: "3918", BENCH_BODY: body }, [/listening/])
    try {
      await load(url, headers) // warm-up: JIT, caches, connection pools
      const real = await load(url, headers)
      const baseline = await load("http://127.0.0.1:3918/", {})
      const verification = await Effect.runPromise(keyVerification)
      const rows = [
        ["", "req/s", "p50 ms", "p99 ms", "non-2xx"],
        ["atrium GET /api/v1/workspaces/current", fmt(real.requests.average), fmt(real.latency.p50, 1), fmt(real.latency.p99, 1), String(real.non2xx)],
        ["bare node:http, same JSON", fmt(baseline.requests.average), fmt(baseline.latency.p50, 1), fmt(baseline.latency.p99, 1), String(baseline.non2xx)]
      ]
      console.log(`\n${connections} connections, ${seconds} s each, one run on this machine\n`)
      for (const row of rows) console.log(`${row[0]?.padEnd(40)}${row.slice(1).map((c) => c.padStart(10)).join("")}`)
      console.log("")
      console.log(`throughput ratio atrium/bare          ${fmt(real.requests.average / baseline.requests.average, 2)}  (target ≥ 0.50)`)
      console.log(`p99 ratio atrium/bare                 ${fmt(real.latency.p99 / Math.max(baseline.latency.p99, 1), 2)}  (target ≤ 4)`)
      console.log(`key verification in-process p50/p99  ${fmt(verification.p50, 3)} / ${fmt(verification.p99, 3)} ms  (target p99 ≤ 1 ms)`)
      console.log(`start to listening                    ${fmt(atrium.startMillis)} ms  (target ≤ 2000 ms)`)
      console.log(`peak RSS of the server under load     ${fmt(peakRss(atrium.child.pid))} MB  (target ≤ 200 MB)`)
      if (real.non2xx > 0 || real.errors > 0) console.log(`warning: ${real.non2xx} non-2xx answers and ${real.errors} errors during the atrium run`)
    } finally {
      bare.child.kill("SIGTERM")
    }
  } finally {
    atrium.child.kill("SIGTERM")
    await new Promise((resolve) => atrium.child.once("exit", resolve))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
