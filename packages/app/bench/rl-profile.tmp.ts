import autocannon from "autocannon"
import { chmodSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { memberKey } from "./member-key.ts"
import { addressOf, start } from "./server-process.ts"

const mode = process.env.RL_MODE ?? "on"
const dir = mkdtempSync(join(tmpdir(), "rlprof-"))
chmodSync(dir, 0o711)
const server = await start("packages/app/src/main.ts", { PORT: "0", DATABASE_URL: undefined, ATRIUM_DATA_DIR: join(dir, "d"), ATRIUM_RATE_LIMIT_PER_MINUTE: "100000000", ATRIUM_REQUEST_LOG: mode, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=/tmp/rlprof-${mode}` }, [/Listening on/])
const baseUrl = addressOf(server)
const headers = { authorization: `Bearer ${await memberKey(baseUrl, "log")}` }
const load = () => autocannon({ url: `${baseUrl}/api/v1/workspaces/current`, connections: 64, duration: 10, headers })
await load()
const r = await load()
console.log(mode, r.requests.average)
await server.stop()
