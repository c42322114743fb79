import { Effect, Option } from "effect"
import { readFile, rm } from "node:fs/promises"
import { join } from "node:path"

/** What a running (or crashed) server left in `postmaster.pid`. */
export interface Postmaster {
  readonly pid: number
  readonly port: number
  /** The server reports `ready` once it accepts connections. */
  readonly ready: boolean
}

const pidFile = (cluster: string) => join(cluster, "postmaster.pid")

/** Lines 1, 4 and 8 of `postmaster.pid`: process id, port, status; `None` when absent or still being written. */
export const readPostmaster = (cluster: string): Effect.Effect<Option.Option<Postmaster>> =>
  Effect.promise(() => readFile(pidFile(cluster), "utf8").catch(() => "")).pipe(
    Effect.map((text) => {
      const lines = text.split("\n")
      const pid = Number.parseInt(lines[0] ?? "", 10)
      const port = Number.parseInt(lines[3] ?? "", 10)
      return Number.isInteger(pid) && pid > 0 && Number.isInteger(port)
        ? Option.some({ pid, port, ready: (lines[7] ?? "").trim() === "ready" })
        : Option.none()
    })
  )

/** Whether `pid` is alive (signal 0; `EPERM` means it exists under another account). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

// On Linux the process name tells a live postmaster from an unrelated process that reused its id after a crash.
const isPostgres = (pid: number): Effect.Effect<boolean> =>
  Effect.promise(() =>
    readFile(`/proc/${pid}/comm`, "utf8").then((name) => name.trim().startsWith("postgres"), () => process.platform !== "linux")
  )

/** The postmaster still running for `cluster`, or `None`; a pid file left by a crash is removed so the next start succeeds. */
export const livePostmaster = Effect.fn("EmbeddedPostgres.livePostmaster")(function*(cluster: string) {
  const found = yield* readPostmaster(cluster)
  if (Option.isNone(found)) return found
  if (isAlive(found.value.pid) && (yield* isPostgres(found.value.pid))) return found
  yield* Effect.promise(() => rm(pidFile(cluster), { force: true }))
  return Option.none<Postmaster>()
})
