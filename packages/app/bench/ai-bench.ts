// AI task submissions per second (local provider) and submission latency, against a running server: without and with
// an `Idempotency-Key`, side by side, with the CPU each task cost.
import autocannon from "autocannon"
import { availableParallelism } from "node:os"
import { fmt } from "./percentiles.ts"
import { cpuSince, treeCpu } from "./process-tree-cpu.ts"

/** One load's figures; the CPU ones only when the server's pid was given. */
export interface SubmissionFigures {
  readonly line: string
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  /** CPU per submission of the server process and of the rest of its tree (its embedded PostgreSQL), in µs. */
  readonly cpu?: { readonly server: number; readonly database: number } | undefined
}

/**
 * Loads `POST /api/v1/ai-tasks` with `key` for `seconds`; tasks are tiny so credits last (1 output token). `keyed` sends
 * a fresh `Idempotency-Key` with every request (autocannon's id replacement). With the server's pid it also tells the
 * CPU each submission cost the server (its workers run the tasks meanwhile) and the server's embedded PostgreSQL, and how
 * many of the machine's cores the tree kept busy.
 */
export const submissionBench = async (baseUrl: string, key: string, seconds: number, serverPid?: number, keyed = false): Promise<SubmissionFigures> => {
  const before = serverPid === undefined ? undefined : treeCpu(serverPid)
  const started = performance.now()
  const result = await autocannon({
    url: `${baseUrl}/api/v1/ai-tasks`,
    method: "POST",
    connections: 32,
    duration: seconds,
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      ...(keyed ? { "idempotency-key": "[<id>]" } : {})
    },
    idReplacement: keyed,
    body: JSON.stringify({ model: "atrium-local-1", input: { prompt: "Say hi" }, maxOutputTokens: 1 })
  })
  const elapsed = performance.now() - started
  const spent = serverPid === undefined || before === undefined ? undefined : cpuSince(serverPid, before)
  const count = Math.max(1, result.requests.total)
  const cpu = spent === undefined ? undefined : { server: (1000 * spent.own) / count, database: (1000 * spent.rest) / count }
  const cpuLine = cpu === undefined || spent === undefined
    ? ""
    : `; CPU per task ${fmt(cpu.server + cpu.database)} µs (server ${fmt(cpu.server)}` +
      (cpu.database > 0 ? `, its PostgreSQL ${fmt(cpu.database)}` : "") +
      `), ${fmt((spent.own + spent.rest) / elapsed, 2)} of ${availableParallelism()} cores busy`
  return {
    line: `${fmt(result.requests.average)} submissions/s, p50 ${fmt(result.latency.p50, 1)} ms, p99 ${fmt(result.latency.p99, 1)} ms, non-2xx ${result.non2xx}${cpuLine}`,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu
  }
}

/**
 * Unkeyed, then keyed (a fresh key per request), on the same server, after a short warm-up of each: the two lines side by
 * side and the ratios issue 25 sets targets for. The CPU of a PostgreSQL outside the server's tree is not seen.
 */
export const keyedAndUnkeyed = async (baseUrl: string, key: string, seconds: number, serverPid: number | undefined, indent = "") => {
  await submissionBench(baseUrl, key, 2) // warm-up: JIT, pools
  await submissionBench(baseUrl, key, 2, undefined, true)
  const plain = await submissionBench(baseUrl, key, seconds, serverPid)
  const keyed = await submissionBench(baseUrl, key, seconds, serverPid, true)
  const cpuOf = (figures: SubmissionFigures) => figures.cpu === undefined ? Number.NaN : figures.cpu.server + figures.cpu.database
  const lines = [
    `${indent}AI task submissions, no Idempotency-Key  ${plain.line}  (p99 ≤ 25 ms)`,
    `${indent}AI task submissions, a fresh key each    ${keyed.line}`,
    `${indent}  keyed ÷ unkeyed: submissions/s ${fmt(keyed.perSecond / plain.perSecond, 2)} (target ≥ 0.9), ` +
    `CPU per task ${fmt(cpuOf(keyed) / cpuOf(plain), 2)} (target ≤ 1.2), p50 ${fmt(keyed.p50 / Math.max(plain.p50, 0.1), 2)}`
  ]
  return { plain, keyed, lines }
}
