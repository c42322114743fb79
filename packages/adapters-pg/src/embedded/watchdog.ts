import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdir, readFile, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { DataLayout } from "./data-layout.ts"
import { isAlive } from "./postmaster-pid.ts"

// Once a second: forget users whose process is gone; with none left, take the start lock (so nobody joins between the
// look and the stop), look once more and stop the server (fast shutdown). Ends with the server. A shell loop,
// not a second Node process: it costs about a megabyte. A zombie counts as gone. Arguments: postmaster pid, users folder, lock file.
const script = `
pm=$1 users=$2 lock=$3
alive() {
  if [ -r "/proc/$1/stat" ]; then state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1); [ -n "$state" ] && [ "$state" != Z ]
  else kill -0 "$1" 2>/dev/null; fi
}
while alive "$pm"; do
  sleep 1
  # Stopped meanwhile (by its last user's own finalizer): touch nothing in a folder that may be going away.
  alive "$pm" || exit 0
  anyone=0
  for f in "$users"/*; do
    [ -e "$f" ] || continue
    if alive "\${f##*/}"; then anyone=1; else rm -f "$f"; fi
  done
  [ $anyone = 1 ] && continue
  if (set -C; echo $$ > "$lock") 2>/dev/null; then
    if [ -z "$(ls -A "$users" 2>/dev/null)" ]; then
      kill -INT "$pm" 2>/dev/null
      while alive "$pm"; do sleep 0.1; done
      rm -f "$lock"
      exit 0
    fi
    rm -f "$lock"
  else
    holder=$(cat "$lock" 2>/dev/null)
    if [ -n "$holder" ] && ! alive "$holder"; then rm -f "$lock"; fi
  fi
done
`

const userFile = (layout: DataLayout) => join(layout.usersDir, String(process.pid))

/** Marks this process as a user of the server; call it under the start lock. */
export const registerUser = (layout: DataLayout) =>
  Effect.promise(async () => {
    await mkdir(layout.usersDir, { recursive: true, mode: 0o700 })
    await writeFile(userFile(layout), "")
  })

/** This process no longer uses the server. */
export const unregisterUser = (layout: DataLayout) => Effect.promise(() => rm(userFile(layout), { force: true }))

/**
 * A watchdog for the postmaster `pid`, unless one already runs: it stops the server a few seconds after the last
 * Atrium process using it ended, however it ended (a crash, `kill -9`), which no finalizer of ours can see. Call it
 * under the start lock. Not on Windows (no POSIX shell): there only a clean exit stops the server.
 */
export const ensureWatchdog = (layout: DataLayout, pid: number) =>
  Effect.promise(async () => {
    if (process.platform === "win32") return
    // "<watchdog pid> <postmaster pid>": a watchdog of an earlier server, about to notice it is gone, does not count.
    const [watchdogPid, watchedPid] = (await readFile(layout.watchdogFile, "utf8").catch(() => "")).trim().split(" ").map(Number)
    if (watchedPid === pid && watchdogPid !== undefined && Number.isInteger(watchdogPid) && watchdogPid > 0 && isAlive(watchdogPid)) return
    const watchdog = spawn("/bin/sh", ["-c", script, "atrium-postgres-watchdog", String(pid), layout.usersDir, layout.lockFile], {
      detached: true,
      stdio: "ignore",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }
    })
    watchdog.unref()
    if (watchdog.pid !== undefined) await writeFile(layout.watchdogFile, `${watchdog.pid} ${pid}`, { mode: 0o600 })
  })
