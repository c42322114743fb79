// `node packages/app/bench/idle-main.ts`: what an idle server costs — the CPU the server and its embedded PostgreSQL
// spend per second with no request arriving (its workers' polls, flush timers), measured over 30 s after a 10 s settle.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cpuSince, treeCpu } from "./process-tree-cpu.ts"
import { start } from "./server-process.ts"

const settleSeconds = 10
const seconds = Number(process.env.BENCH_SECONDS ?? 30)
const pause = (s: number) => new Promise((done) => setTimeout(done, s * 1000))

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "atrium-idle-bench-"))
  const server = await start("packages/app/src/main.ts", { PORT: "0", DATABASE_URL: undefined, ATRIUM_DATA_DIR: dir }, [/Listening on/])
  try {
    await pause(settleSeconds)
    const pid = server.child.pid ?? 0
    const before = treeCpu(pid)
    await pause(seconds)
    const spent = cpuSince(pid, before)
    console.log(`idle CPU ms per second: server ${(spent.own / seconds).toFixed(1)}, its PostgreSQL ${(spent.rest / seconds).toFixed(1)}`)
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
