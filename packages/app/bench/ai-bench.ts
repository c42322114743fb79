// AI task submissions per second (local provider) and submission latency, against a running server: without and with
// an `Idempotency-Key`, in interleaved rounds, with the CPU each task cost; at the machine's most (closed loop) and at a
// fixed rate it sustains (open loop), where the latency is the server's rather than its queue's.
import autocannon from "autocannon"
import { randomBytes } from "node:crypto"
import { availableParallelism } from "node:os"
import { fixedRate } from "./fixed-rate.ts"
import { fmt, median } from "./percentiles.ts"
import { cpuSince, treeCpu } from "./process-tree-cpu.ts"

/** One load's figures; the CPU ones only when the server's pid was given. */
export interface SubmissionFigures {
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  /** CPU per submission of the server process and of the rest of its tree (its embedded PostgreSQL), in µs. */
  readonly cpu?: { readonly server: number; readonly database: number } | undefined
  /** Cores the tree kept busy. */
  readonly cores?: number | undefined
  /** Open loop only: p99 from each request's write, and how late the generator sent its latest request (ms). */
  readonly open?: { readonly p99FromSend: number; readonly maxLateness: number } | undefined
}

const body = JSON.stringify({ model: "atrium-local-1", input: { prompt: "Say hi" }, maxOutputTokens: 1 })
const headersOf = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" })

// Runs `load` (which answers how many requests it made) and tells the CPU the server's tree spent on each.
const measured = async <A>(serverPid: number | undefined, load: () => Promise<A>, countOf: (a: A) => number) => {
  const before = serverPid === undefined ? undefined : treeCpu(serverPid)
  const started = performance.now()
  const result = await load()
  const elapsed = performance.now() - started
  const spent = serverPid === undefined || before === undefined ? undefined : cpuSince(serverPid, before)
  const count = Math.max(1, countOf(result))
  return {
    result,
    cpu: spent === undefined ? undefined : { server: (1000 * spent.own) / count, database: (1000 * spent.rest) / count },
    cores: spent === undefined ? undefined : (spent.own + spent.rest) / elapsed
  }
}

/**
 * Loads `POST /api/v1/ai-tasks` with `key` for `seconds` from 32 connections, closed loop (the machine's most); tasks are
 * tiny so credits last (1 output token). `keyed` sends a fresh `Idempotency-Key` with every request (autocannon's id
 * replacement). With the server's pid it also tells the CPU each submission cost the server (its workers run the tasks
 * meanwhile) and the server's embedded PostgreSQL.
 */
export const submissionBench = async (baseUrl: string, key: string, seconds: number, serverPid?: number, keyed = false): Promise<SubmissionFigures> => {
  const { result, cpu, cores } = await measured(serverPid, () =>
    autocannon({
      url: `${baseUrl}/api/v1/ai-tasks`,
      method: "POST",
      connections: 32,
      duration: seconds,
      headers: { ...headersOf(key), ...(keyed ? { "idempotency-key": "[<id>]" } : {}) },
      idReplacement: keyed,
      body
    }), (r) => r.requests.total)
  return { perSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, cpu, cores }
}

// Waits (at most 30 s) until the server's tree is nearly idle: the task workers have settled what an earlier load left
// queued, so a fixed-rate load measures the steady state rather than that backlog.
const quiet = async (serverPid: number | undefined) => {
  if (serverPid === undefined) return
  for (let i = 0; i < 30; i++) {
    const before = treeCpu(serverPid)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const spent = cpuSince(serverPid, before)
    if (spent.own + spent.rest < 150) return
  }
}

/**
 * The same submissions sent at `rate` a second, evenly spaced whatever the answers' pace (open loop, up to 64 in flight),
 * once the server has settled what earlier loads queued.
 */
export const fixedRateBench = async (baseUrl: string, key: string, seconds: number, rate: number, serverPid?: number, keyed = false): Promise<SubmissionFigures> => {
  await quiet(serverPid)
  const run = randomBytes(6).toString("hex")
  const { result, cpu, cores } = await measured(serverPid, () =>
    fixedRate({
      url: `${baseUrl}/api/v1/ai-tasks`,
      method: "POST",
      headers: (i) => ({ ...headersOf(key), ...(keyed ? { "idempotency-key": `${run}-${i}` } : {}) }),
      body,
      rate,
      seconds,
      connections: 64
    }), (r) => r.completed)
  return {
    perSecond: result.completed / seconds,
    p50: result.p50,
    p99: result.p99,
    non2xx: result.non2xx + result.errors,
    cpu,
    cores,
    open: { p99FromSend: result.p99FromSend, maxLateness: result.maxLateness }
  }
}

const cpuOf = (figures: SubmissionFigures) => figures.cpu === undefined ? Number.NaN : figures.cpu.server + figures.cpu.database

// The medians of a kind's rounds, as one line.
const lineOf = (rounds: ReadonlyArray<SubmissionFigures>) => {
  const server = median(rounds.map((r) => r.cpu?.server ?? Number.NaN))
  const database = median(rounds.map((r) => r.cpu?.database ?? Number.NaN))
  const cores = median(rounds.map((r) => r.cores ?? Number.NaN))
  const cpu = Number.isNaN(server)
    ? ""
    : `; CPU per task ${fmt(median(rounds.map(cpuOf)))} µs (server ${fmt(server)}, its PostgreSQL ${fmt(database)}), ${fmt(cores, 2)} of ${availableParallelism()} cores busy`
  const open = rounds.every((r) => r.open !== undefined)
    ? ` (from the write ${fmt(median(rounds.map((r) => r.open?.p99FromSend ?? Number.NaN)), 1)} ms; the generator sent up to ` +
      `${fmt(median(rounds.map((r) => r.open?.maxLateness ?? Number.NaN)))} ms late)`
    : ""
  return `${fmt(median(rounds.map((r) => r.perSecond)))}/s, p50 ${fmt(median(rounds.map((r) => r.p50)), 1)} ms, ` +
    `p99 ${fmt(median(rounds.map((r) => r.p99)), 1)} ms${open}, non-2xx ${rounds.reduce((n, r) => n + r.non2xx, 0)}${cpu}`
}

// keyed ÷ unkeyed of one figure, per round (the rounds ran side by side in time), as a median and the rounds.
const ratioOf = (plain: ReadonlyArray<SubmissionFigures>, keyed: ReadonlyArray<SubmissionFigures>, figure: (f: SubmissionFigures) => number) => {
  const ratios = plain.map((p, i) => figure(keyed[i] ?? p) / figure(p))
  return `${fmt(median(ratios), 2)} (${ratios.map((r) => fmt(r, 2)).join(", ")})`
}

// Unkeyed and keyed loads in alternating order, round after round, so drift (a neighbour's load, the tables' growth)
// falls on both alike.
const interleaved = async (rounds: number, load: (keyed: boolean) => Promise<SubmissionFigures>) => {
  const plain: Array<SubmissionFigures> = []
  const keyed: Array<SubmissionFigures> = []
  for (let round = 0; round < rounds; round++) {
    for (const isKeyed of round % 2 === 0 ? [false, true] : [true, false]) (isKeyed ? keyed : plain).push(await load(isKeyed))
  }
  return { plain, keyed }
}

/**
 * Unkeyed and keyed (a fresh key per request) on the same server after a short warm-up of each, in `BENCH_ROUNDS`
 * (default 3) interleaved rounds: first at the machine's most, then open loop at `BENCH_FIXED_RATE` a second (default
 * half the unkeyed most; a comma-separated list loads each rate in turn), both kinds at the same rate. The medians side by side and the per-round ratios issue 25 sets targets for. The CPU of a PostgreSQL
 * outside the server's tree is not seen.
 */
export const keyedAndUnkeyed = async (baseUrl: string, key: string, seconds: number, serverPid: number | undefined, indent = "") => {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
  await submissionBench(baseUrl, key, 2) // warm-up: JIT, pools
  await submissionBench(baseUrl, key, 2, undefined, true)
  const most = await interleaved(rounds, (keyed) => submissionBench(baseUrl, key, seconds, serverPid, keyed))
  const half = Math.max(10, Math.round(median(most.plain.map((r) => r.perSecond)) / 2))
  // A list (`100,250,500`) loads each rate in turn: how the latency grows with the load.
  const rates = (process.env.BENCH_FIXED_RATE ?? `${half}`).split(",").map(Number)
  const plain = { perSecond: median(most.plain.map((r) => r.perSecond)) }
  const lines = [
    `${indent}AI task submissions at the machine's most (32 connections, closed loop), medians of ${rounds} interleaved rounds:`,
    `${indent}  no Idempotency-Key  ${lineOf(most.plain)}`,
    `${indent}  a fresh key each    ${lineOf(most.keyed)}`,
    `${indent}  keyed ÷ unkeyed per round: submissions/s ${ratioOf(most.plain, most.keyed, (f) => f.perSecond)} (target ≥ 0.9), ` +
    `CPU per task ${ratioOf(most.plain, most.keyed, cpuOf)} (target ≤ 1.2)`
  ]
  for (const rate of rates) {
    const steady = await interleaved(rounds, (keyed) => fixedRateBench(baseUrl, key, seconds, rate, serverPid, keyed))
    lines.push(
      `${indent}AI task submissions at a fixed ${fmt(rate)}/s (BENCH_FIXED_RATE, else half the unkeyed most; open loop, latency from each request's due time):`,
      `${indent}  no Idempotency-Key  ${lineOf(steady.plain)}  (target p99 ≤ 25 ms)`,
      `${indent}  a fresh key each    ${lineOf(steady.keyed)}`,
      `${indent}  keyed ÷ unkeyed per round: CPU per task ${ratioOf(steady.plain, steady.keyed, cpuOf)}, p99 ${ratioOf(steady.plain, steady.keyed, (f) => f.p99)}`
    )
  }
  return { plain, lines }
}
