import { Effect, Schedule, type Scope } from "effect"
import { open, readFile, rm } from "node:fs/promises"
import { EmbeddedPostgresError, failedTo } from "./embedded-postgres-error.ts"
import { isAlive } from "./postmaster-pid.ts"

class LockBusy extends Error {}

// Creates the lock file exclusively; a lock whose holder died is taken over.
const tryLock = (path: string) =>
  Effect.tryPromise({
    try: async () => {
      const handle = await open(path, "wx", 0o600).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") return Promise.reject(error)
        const holder = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10)
        if (Number.isInteger(holder) && isAlive(holder)) return Promise.reject(new LockBusy())
        await rm(path, { force: true })
        return open(path, "wx", 0o600)
      })
      await handle.writeFile(String(process.pid))
      await handle.close()
    },
    catch: (cause) => cause instanceof LockBusy ? cause : failedTo(`cannot create ${path}`)(cause)
  })

/**
 * Holds `path` for the scope, so only one process at a time initialises or starts the cluster (a server and a CLI
 * started together must not both run initdb). Waits up to 60 seconds for another holder.
 */
export const startLock = (path: string): Effect.Effect<void, EmbeddedPostgresError, Scope.Scope> =>
  Effect.acquireRelease(
    tryLock(path).pipe(
      Effect.retry({ while: (error) => error instanceof LockBusy, schedule: Schedule.spaced("50 millis"), times: 1200 }),
      Effect.mapError((error) =>
        error instanceof LockBusy
          ? new EmbeddedPostgresError({ message: `another process has held ${path} for a minute while starting the database`, cause: undefined })
          : error
      )
    ),
    () => Effect.promise(() => rm(path, { force: true }))
  )
