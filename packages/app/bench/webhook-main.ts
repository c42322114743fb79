// `node packages/app/bench/webhook-main.ts`: only the webhook part of `npm run bench`, on DATABASE_URL (1 vs 2 processes).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { webhookBench } from "./webhook-bench.ts"

const dataDir = mkdtempSync(join(tmpdir(), "atrium-webhook-bench-"))
for (const line of await webhookBench(dataDir, { embedded: process.env.BENCH_EMBEDDED === "1" })) console.log(line)
rmSync(dataDir, { recursive: true, force: true })
