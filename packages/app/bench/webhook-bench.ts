// Webhook deliveries per second to a loopback receiver, attempts recorded in Postgres; event-to-first-attempt latency.
import {
  ApiKeys,
  defaultModelCatalog,
  type WebhookDeliveries,
  WebhookEndpoints,
  type WebhookTransport,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { operatorPrincipal, ownerPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { Duration, Effect, Exit, Layer, Option, Redacted, Schema, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { noStores } from "../src/purchases/store-config.ts"
import type { AppConfig } from "../src/app-config.ts"
import { AppDomain } from "../src/domain-layer.ts"
import { Workers } from "../src/workers.ts"
import { startReceiver } from "./loopback-receiver.ts"
import { fmt, percentile } from "./percentiles.ts"
import { freshDatabase } from "./fresh-database.ts"
import { addressOf, start } from "./server-process.ts"

/** Everything the app's domain layer provides. */
type Domain = Layer.Success<ReturnType<typeof AppDomain.layerWith>>
/** Runs an effect against a built domain. */
type Run = <A, E>(effect: Effect.Effect<A, E, Domain | WebhookDeliveries | WebhookTransport>) => Promise<A>

const createKey = (workspaceId: WorkspaceId, name: string) =>
  Effect.gen(function*() {
    return yield* (yield* ApiKeys).create(systemPrincipal(workspaceId), { name })
  })
const endpointsPerWorkspace = 10
// Events per throughput run (× endpoints = deliveries): 20,000 deliveries last several seconds, long enough for a steady
// figure; BENCH_WEBHOOK_EVENTS overrides.
const eventsPerRun = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2000)
// Events delivered before the measured ones per worker process, unmeasured: a fresh worker process spends its first
// ~15,000 deliveries compiling its hot code (a fifth of its CPU in a profile), which a long-running worker no longer
// does. BENCH_WEBHOOK_WARMUP=0 measures from a cold start.
const warmUpEvents = Number(process.env.BENCH_WEBHOOK_WARMUP ?? 1000)

/** A configuration for the bench's own in-process domain. */
export const benchConfig = (database: AppConfig["database"], secretKey: string): AppConfig => ({
  host: "127.0.0.1",
  port: 0,
  database,
  databaseTimeout: Duration.seconds(5),
  keyPepper: Option.none(),
  secretKey: Option.some(Redacted.make(secretKey)),
  webhookAllowNetworks: ["127.0.0.0/8"],
  webhookDisableAfterDays: 5,
  workers: false,
  requestLog: true,
  workLease: Option.none(),
  drainDelay: Duration.zero,
  logLevel: "Info",
  openai: Option.none(),
  rateLimitPerMinute: 100_000_000,
  redis: Option.none(),
  otlp: Option.none(),
  stores: noStores,
  push: Option.none(),
  modelCatalog: defaultModelCatalog,
  dnsServers: [],
  dnsTimeout: Duration.seconds(5),
  domainDenySuffixes: [],
  mail: { url: Option.none(), from: Option.none(), publicUrl: Option.none() }
})

/** Subscribes endpoints to the receiver and creates `events` API keys: `events × endpoints` pending deliveries. */
export const enqueueFor = (url: string, events: number) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Webhook bench" })
    for (let i = 0; i < endpointsPerWorkspace; i++) {
      yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: `${url}/${i}`, eventTypes: ["api_key.created"] })
    }
    yield* Effect.forEach(
      Array.from({ length: events }, (_, i) => i),
      (i) => createKey(workspace.id, `bench-${i}`),
      { concurrency: 8, discard: true }
    )
    yield* analyzeQueue
    return workspace
  })

/**
 * Planner statistics for the new queue, as autovacuum gathers them on a server that runs it: a test server may run
 * without it (this one does), and a table never analyzed is planned as a few rows, every due row read and sorted per claim.
 */
const analyzeQueue = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ANALYZE webhook_deliveries, webhook_endpoints, events`
}).pipe(Effect.orDie)

const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))

/** Deliveries of the workspace whose succeeding attempt is recorded. */
export const succeededDeliveries = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql`SELECT count(*)::int AS count FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND status = 'succeeded'`.pipe(
      Effect.flatMap(decodeCount)
    )
    return row.count
  }).pipe(Effect.orDie)

/**
 * Removes the workspace's endpoints (and with them their deliveries): each run seals under a key of its own, and a later
 * run's worker process refuses to start beside secrets its key cannot open.
 */
export const removeEndpoints = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM webhook_endpoints WHERE workspace_id = ${workspaceId}`
  }).pipe(Effect.orDie)

const decodePids = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ pid: Schema.Int })))

/** Process ids of the backends connected to the current database. */
const databaseBackends = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`.pipe(Effect.flatMap(decodePids))
  return rows.map((row) => row.pid)
}).pipe(Effect.orDie)

// CPU seconds (user + system) a child process has used so far, from /proc (Linux); 0 elsewhere.
const cpuSecondsOf = (pid: number | undefined): number => {
  if (pid === undefined) return 0
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
    return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100
  } catch {
    return 0
  }
}

/** The processes whose CPU a run counts, taken when it begins: the worker processes and the database's backends. */
interface Counted {
  readonly workers: ReadonlyArray<number | undefined>
  readonly database: ReadonlyArray<number>
}
const nothingCounted = () => Promise.resolve<Counted>({ workers: [], database: [] })

const cpuOf = (processes: ReadonlyArray<number | undefined>) => processes.reduce<number>((sum, pid) => sum + cpuSecondsOf(pid), 0)
const cpuNow = (counted: Counted) => ({ workers: cpuOf(counted.workers), database: cpuOf(counted.database) })

const waitFor = async (check: () => boolean, limitMillis: number) => {
  const until = Date.now() + limitMillis
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10))
}

/**
 * One throughput run: enqueue the warm-up's deliveries and then the measured ones (claims take the oldest due first),
 * start `workers` (a function that starts the workers and returns a stop), and measure from the first delivery past
 * the warm-up to the last measured one recorded.
 */
const throughput = async (
  run: Run,
  events: number,
  startWorkers: () => Promise<() => Promise<void>>,
  counted: () => Promise<Counted> = nothingCounted,
  workerCount = 1
) => {
  const receiver = await startReceiver()
  const warmUpShare = warmUpEvents * workerCount
  const warmUp = warmUpShare > 0 ? await run(enqueueFor(receiver.url, warmUpShare)) : undefined
  const warmUpTotal = warmUpShare * endpointsPerWorkspace
  const workspace = await run(enqueueFor(receiver.url, events))
  const total = events * endpointsPerWorkspace
  const stop = await startWorkers()
  await waitFor(() => receiver.received() > warmUpTotal, 120_000)
  const began = performance.now()
  const processes = await counted()
  const cpuBefore = cpuNow(processes)
  await waitFor(() => receiver.received() >= warmUpTotal + total, 120_000)
  // Counted once every attempt is recorded, not when the receiver has them.
  let recorded = 0
  const until = Date.now() + 60_000
  while (recorded < total && Date.now() < until) {
    recorded = await run(succeededDeliveries(workspace.id))
    if (recorded < total) await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const seconds = (performance.now() - began) / 1000
  const delivered = recorded
  // CPU per delivery: steadier than deliveries/s when other work shares the cores.
  const cpuAfter = cpuNow(processes)
  const perDelivery = (before: number, after: number) => (after - before) * 1e6 / Math.max(1, delivered)
  const cpuMicros = perDelivery(cpuBefore.workers, cpuAfter.workers)
  const databaseMicros = perDelivery(cpuBefore.database, cpuAfter.database)
  await stop()
  await receiver.close()
  await run(removeEndpoints(workspace.id))
  if (warmUp !== undefined) await run(removeEndpoints(warmUp.id))
  return { perSecond: delivered / seconds, delivered, total, cpuMicros, databaseMicros }
}

/** Latency from an event's creation to its first attempt, with workers already running. */
const latency = async (run: Run, startWorkers: () => Promise<() => Promise<void>>) => {
  const receiver = await startReceiver()
  const stop = await startWorkers()
  const workspace = await run(Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Latency bench" })
    yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: receiver.url, eventTypes: ["api_key.created"] })
    return workspace
  }))
  for (let i = 0; i < 100; i++) {
    await run(createKey(workspace.id, `lat-${i}`))
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await waitFor(() => receiver.received() >= 100, 30_000)
  await stop()
  await receiver.close()
  await run(removeEndpoints(workspace.id))
  return { p50: percentile(receiver.latencies(), 50), p99: percentile(receiver.latencies(), 99) }
}

/** Runs the webhook benchmark on the embedded database (in-process worker) and, with `DATABASE_URL`, on Postgres with 1 and 2 worker processes. */
export const webhookBench = async (dataDir: string, options: { readonly embedded: boolean } = { embedded: true }) => {
  const measured = fmt(eventsPerRun * endpointsPerWorkspace)
  const lines = [`webhook runs: ${measured} measured deliveries each, after ${fmt(warmUpEvents * endpointsPerWorkspace)} unmeasured warm-up ones per worker`]
  const secretKey = randomBytes(32).toString("base64")
  if (options.embedded) lines.push(...await embeddedRun(dataDir, secretKey))
  return [...lines, ...await postgresRun(secretKey)]
}

// The embedded database with an in-process worker.
const embeddedRun = async (dataDir: string, secretKey: string) => {
  const lines: Array<string> = []
  const embedded = AppDomain.layerWith(benchConfig({ _tag: "Embedded", dataDir }, secretKey))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(embedded, scope))
  const run: Run = (effect) => Effect.runPromise(Effect.provide(effect, context))
  const inProcessWorker = async () => {
    const workerScope = Effect.runSync(Scope.make())
    await run(Layer.buildWithScope(Workers.layerWith({ listen: true, only: ["WebhookDeliveries"] }), workerScope))
    return () => Effect.runPromise(Scope.close(workerScope, Exit.void))
  }
  const onEmbedded = await throughput(run, eventsPerRun, inProcessWorker)
  const embeddedLatency = await latency(run, inProcessWorker)
  await Effect.runPromise(Scope.close(scope, Exit.void))
  lines.push(`webhook deliveries/s, embedded, 1 in-process worker ${fmt(onEmbedded.perSecond)}  (${onEmbedded.delivered}/${onEmbedded.total} delivered)`)
  lines.push(`event → first attempt p50/p99, embedded             ${fmt(embeddedLatency.p50)} / ${fmt(embeddedLatency.p99)} ms  (target p50 ≤ 30 ms)`)
  return lines
}

// A fresh database of the DATABASE_URL server with 1 and 2 worker processes: the shared database keeps every earlier
// run's dead rows (no autovacuum on a test server), which the claims would scan past.
const postgresRun = async (secretKey: string) => {
  const server = process.env.DATABASE_URL
  if (server === undefined || server.length === 0) {
    return ["webhook deliveries/s on Postgres: set DATABASE_URL to measure 1 vs 2 worker processes (target ≥ 3,000/s)"]
  }
  const database = await freshDatabase(server, "webhooks")
  try {
    return await postgresFigures(database.url, secretKey)
  } finally {
    await database.drop()
  }
}

const postgresFigures = async (url: string, secretKey: string) => {
  const lines: Array<string> = []
  const postgres = AppDomain.layerWith(benchConfig({ _tag: "Url", url: Redacted.make(url) }, secretKey))
  const pgScope = Effect.runSync(Scope.make())
  const pgContext = await Effect.runPromise(Layer.buildWithScope(postgres, pgScope))
  const runPg: Run = (effect) => Effect.runPromise(Effect.provide(effect, pgContext))
  let pids: ReadonlyArray<number | undefined> = []
  // With the database's backends serving the run (the workers' and the bench's own), when the server runs on this machine.
  const counted = async (): Promise<Counted> => ({ workers: pids, database: await runPg(databaseBackends) })
  const workerProcesses = (count: number) => async () => {
    const started = await Promise.all(Array.from({ length: count }, () =>
      start("packages/app/src/main.ts", {
        PORT: "0",
        DATABASE_URL: url,
        ATRIUM_SECRET_KEY: secretKey,
        ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.0/8"
      }, [/Listening on/])))
    void started.map(addressOf)
    pids = started.map((s) => s.child.pid)
    return async () => {
      await Promise.all(started.map((s) => s.stop()))
    }
  }
  const one = await throughput(runPg, eventsPerRun, workerProcesses(1), counted)
  const two = await throughput(runPg, eventsPerRun, workerProcesses(2), counted, 2)
  const pgLatency = await latency(runPg, workerProcesses(1))
  await Effect.runPromise(Scope.close(pgScope, Exit.void))
  lines.push(`webhook deliveries/s, Postgres, 1 worker process    ${fmt(one.perSecond)}  (${one.delivered}/${one.total})  ${fmt(one.cpuMicros)} µs worker CPU/delivery, ${fmt(one.databaseMicros)} µs Postgres  (target ≥ 3,000)`)
  lines.push(`webhook deliveries/s, Postgres, 2 worker processes  ${fmt(two.perSecond)}  (${two.delivered}/${two.total})  ${fmt(two.cpuMicros)} µs worker CPU/delivery, ${fmt(two.databaseMicros)} µs Postgres  ratio ${fmt(two.perSecond / one.perSecond, 2)}`)
  lines.push(`event → first attempt p50/p99, Postgres             ${fmt(pgLatency.p50)} / ${fmt(pgLatency.p99)} ms  (target p50 ≤ 30 ms)`)
  return lines
}
