// Issue 24: a connection accepted while the server starts is answered, never left waiting.
import { afterAll, describe, expect, it } from "vitest"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { startServer, tempWorkDir } from "../server-process.ts"
import { freePort, type Outcome, probe, tally } from "./probe.ts"

const work = tempWorkDir("atrium-start-gate-")
afterAll(() => rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const starts = 5

describe("a starting server", () => {
  it(`answers or refuses every request fired from before start to after it, over ${starts} starts; none hangs`, async () => {
    const outcomes: Array<Outcome> = []
    for (let run = 0; run < starts; run++) {
      const port = await freePort()
      const fired: Array<Promise<{ readonly outcome: Outcome }>> = []
      let firing = true
      // A request every 10 ms on a connection of its own, each waiting 5 s at most for its answer.
      const fire = (async () => {
        while (firing) {
          fired.push(probe(port, "/healthz", 5_000))
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      })()
      const server = await startServer({ PORT: String(port), ATRIUM_DATA_DIR: join(work, "data") })
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      firing = false
      await fire
      outcomes.push(...(await Promise.all(fired)).map((result) => result.outcome))
      expect(await server.stop()).toBe(0)
    }
    const counts = tally(outcomes)
    console.log(`start gate: ${outcomes.length} requests over ${starts} starts:`, counts)
    expect(Object.keys(counts).filter((outcome) => outcome !== "refused" && outcome !== "answered")).toEqual([])
    expect(counts.answered ?? 0).toBeGreaterThan(starts * 50)
  }, 180_000)
})
