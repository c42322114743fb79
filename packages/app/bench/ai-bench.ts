// AI task submissions per second (local provider) and submission latency, against a running server.
import autocannon from "autocannon"
import { availableParallelism } from "node:os"
import { fmt } from "./percentiles.ts"
import { cpuSince, treeCpu } from "./process-tree-cpu.ts"

/**
 * Loads `POST /api/v1/ai-tasks` with `key` for `seconds`; tasks are tiny so credits last (1 output token). With the
 * server's pid it also tells the CPU each submission cost the server (its workers run the tasks meanwhile) and the
 * server's embedded PostgreSQL, and how many of the machine's cores the tree kept busy.
 */
export const submissionBench = async (baseUrl: string, key: string, seconds: number, serverPid?: number) => {
  const before = serverPid === undefined ? undefined : treeCpu(serverPid)
  const started = performance.now()
  const result = await autocannon({
    url: `${baseUrl}/api/v1/ai-tasks`,
    method: "POST",
    connections: 32,
    duration: seconds,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "atrium-local-1", input: { prompt: "Say hi" }, maxOutputTokens: 1 })
  })
  const elapsed = performance.now() - started
  const cpu = serverPid === undefined || before === undefined ? undefined : cpuSince(serverPid, before)
  const count = Math.max(1, result.requests.total)
  const cpuLine = cpu === undefined
    ? ""
    : `; CPU per submission: server ${fmt((1000 * cpu.own) / count)} µs` +
      (cpu.rest > 0 ? `, its PostgreSQL ${fmt((1000 * cpu.rest) / count)} µs` : "") +
      `, ${fmt((cpu.own + cpu.rest) / elapsed, 2)} of ${availableParallelism()} cores busy`
  return {
    line: `${fmt(result.requests.average)} submissions/s, p50 ${fmt(result.latency.p50, 1)} ms, p99 ${fmt(result.latency.p99, 1)} ms, non-2xx ${result.non2xx}${cpuLine}`,
    perSecond: result.requests.average,
    p99: result.latency.p99
  }
}
