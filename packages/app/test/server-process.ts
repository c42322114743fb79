// Starts `packages/app/src/main.ts` as `npm start` would, on an ephemeral port, and waits until it listens.
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { chmodSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeWaiters } from "./support/waiters.ts"

/** A running server process and what it printed. */
export interface ServerProcess {
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly output: () => string
  /** Resolves once the server printed something `pattern` matches, or all it printed passes it (at once if it already has). */
  readonly printed: (pattern: string | RegExp | ((output: string) => boolean)) => Promise<void>
  readonly stop: () => Promise<number | null>
}

const root = join(import.meta.dirname, "..", "..", "..")

/** Spawns the server with `env` and resolves once it logs its address (and, when `waitFor` is given, once that appears too). */
export const startServer = (env: Record<string, string | undefined>, waitFor?: RegExp): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["packages/app/src/main.ts"], {
      cwd: root,
      // A Redis prefix of its own: limits counted in a shared Redis never leak from one test (or run) into another. No
      // balancer watches a test's server, so a stop does not wait for one to notice (ATRIUM_DRAIN_DELAY).
      env: { ...process.env, DATABASE_URL: undefined, PORT: "0", ATRIUM_REDIS_PREFIX: `atrium-test-${randomUUID()}:`, ATRIUM_DRAIN_DELAY: "0 seconds", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    let settled = false
    const waiters = makeWaiters()
    const printed = (pattern: string | RegExp | ((output: string) => boolean)) =>
      waiters.until(() => typeof pattern === "string" ? output.includes(pattern) : typeof pattern === "function" ? pattern(output) : pattern.test(output))
    const stop = () =>
      new Promise<number | null>((done) => {
        if (child.exitCode !== null) return done(child.exitCode)
        child.once("exit", (code) => done(code))
        child.kill("SIGTERM")
      })
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      waiters.happened()
      const address = /Listening on (http:\/\/[0-9.:]+)/.exec(output)
      if (!settled && address?.[1] !== undefined && (waitFor === undefined || waitFor.test(output))) {
        settled = true
        resolve({ child, baseUrl: address[1], output: () => output, printed, stop })
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.once("exit", (code) => {
      if (!settled) reject(new Error(`server exited with ${code} before listening:\n${output}`))
    })
  })

/** A fresh temporary folder the `postgres` OS account can pass through (the embedded server runs as it under root). */
export const tempWorkDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o711)
  return dir
}
