// AI task submissions per second (local provider) and submission latency, against a running server.
import autocannon from "autocannon"
import { fmt } from "./percentiles.ts"

/** Loads `POST /api/v1/ai-tasks` with `key` for `seconds`; tasks are tiny so credits last (1 output token). */
export const submissionBench = async (baseUrl: string, key: string, seconds: number) => {
  const result = await autocannon({
    url: `${baseUrl}/api/v1/ai-tasks`,
    method: "POST",
    connections: 32,
    duration: seconds,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "atrium-local-1", input: { prompt: "Say hi" }, maxOutputTokens: 1 })
  })
  return {
    line: `${fmt(result.requests.average)} submissions/s, p50 ${fmt(result.latency.p50, 1)} ms, p99 ${fmt(result.latency.p99, 1)} ms, non-2xx ${result.non2xx}`,
    perSecond: result.requests.average,
    p99: result.latency.p99
  }
}
