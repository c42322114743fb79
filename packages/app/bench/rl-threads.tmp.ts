import autocannon from "autocannon"
import { chmodSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { memberKey } from "./member-key.ts"
import { addressOf, start } from "./server-process.ts"

const threads = (pid: number) => {
  const out = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[11]) + Number(fields[12])
    const name = tid === String(pid) ? "main" : comm.replace(/\d+$/, "")
    out.set(name, (out.get(name) ?? 0) + ticks)
  }
  return out
}
const dir = mkdtempSync(join(tmpdir(), "rlthreads-"))
chmodSync(dir, 0o711)
const servers = []
for (const mode of ["on", "off"]) {
  const server = await start("packages/app/src/main.ts", { PORT: "0", DATABASE_URL: undefined, ATRIUM_DATA_DIR: join(dir, mode), ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000", ATRIUM_REQUEST_LOG: mode }, [/Listening on/])
  const baseUrl = addressOf(server)
  const headers = { authorization: `Bearer ${await memberKey(baseUrl, "log")}` }
  const load = () => autocannon({ url: `${baseUrl}/api/v1/workspaces/current`, connections: 64, duration: 5, headers })
  await load()
  servers.push({ mode, server, load, pid: server.child.pid ?? 0 })
}
for (let round = 0; round < 4; round++) {
  for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
    const before = threads(s.pid)
    const r = await s.load()
    const after = threads(s.pid)
    const parts = [...after].map(([k, v]) => `${k} ${((v - (before.get(k) ?? 0)) * 10000 / r.requests.total).toFixed(1)}`)
    console.log(s.mode, Math.round(r.requests.average), "µs/req:", parts.join(", "))
  }
}
for (const s of servers) await s.server.stop()
