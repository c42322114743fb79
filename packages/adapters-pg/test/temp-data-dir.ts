import { Effect } from "effect"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A data directory in a fresh temporary folder the `postgres` account can pass through, deleted with the scope. */
export const tempDataDir = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await mkdtemp(join(tmpdir(), "atrium-embedded-"))
    await chmod(dir, 0o711)
    return dir
  }),
  // Retried: the server's watchdog may write its lock file there for a moment after the server stopped.
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))
).pipe(Effect.map((dir) => join(dir, "data")))
