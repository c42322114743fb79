import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// An entry that re-executes itself as the server's does, then prints what the replacement process sees.
const folder = mkdtempSync(join(tmpdir(), "atrium-start-environment-"))
const cache = join(folder, "cache")
const entry = join(folder, "entry.mjs")
writeFileSync(entry, `
import { execWithStartEnvironment } from ${JSON.stringify(join(import.meta.dirname, "..", "src", "start-environment.ts"))}
const first = process.env.ENTRY_FIRST_PID ?? String(process.pid)
process.env.ENTRY_FIRST_PID = first
execWithStartEnvironment(${JSON.stringify(cache)})
const { MALLOC_MMAP_THRESHOLD_: threshold = null, NODE_COMPILE_CACHE: compileCache = null } = process.env
console.log(JSON.stringify({ first, pid: String(process.pid), threshold, compileCache, flags: process.execArgv, args: process.argv.slice(2) }))
`)

interface Seen {
  readonly first: string
  readonly pid: string
  readonly threshold: string | null
  readonly compileCache: string | null
  readonly flags: Array<string>
  readonly args: Array<string>
}

const run = (env: Record<string, string | undefined>) =>
  Effect.callback<Seen>((resume) => {
    execFile(process.execPath, ["--max-semi-space-size=4", entry, "an-argument"], { env: { ...process.env, ...env } }, (error, stdout) => {
      resume(error === null ? Effect.succeed(JSON.parse(stdout)) : Effect.die(error))
    })
  })

it.effect("the entry re-executes itself once (same pid, flags and arguments) with the malloc threshold and the compile cache", () =>
  Effect.gen(function*() {
    const seen = yield* run({ MALLOC_MMAP_THRESHOLD_: undefined, NODE_COMPILE_CACHE: undefined })
    if (process.platform === "win32") return assert.isNull(seen.threshold)
    assert.deepStrictEqual(seen, {
      first: seen.pid,
      pid: seen.pid,
      threshold: "1048576",
      compileCache: cache,
      flags: ["--max-semi-space-size=4"],
      args: ["an-argument"]
    })
  }))

it.effect("what the environment already sets is kept, and only what is missing is added", () =>
  Effect.gen(function*() {
    const kept = yield* run({ MALLOC_MMAP_THRESHOLD_: "65536", NODE_COMPILE_CACHE: undefined })
    assert.strictEqual(kept.threshold, "65536")
    if (process.platform !== "win32") assert.strictEqual(kept.compileCache, cache)
    const untouched = yield* run({ MALLOC_MMAP_THRESHOLD_: "65536", NODE_COMPILE_CACHE: join(folder, "theirs") })
    assert.deepStrictEqual([untouched.threshold, untouched.compileCache], ["65536", join(folder, "theirs")])
  }))
