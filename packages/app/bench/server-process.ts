// Starts the real server (`packages/app/src/main.ts`) as a child process and waits for what it must print.
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"

/** A started child process and what it printed. */
export interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  readonly startMillis: number
  readonly stop: () => Promise<void>
}

const root = join(import.meta.dirname, "..", "..", "..")

/** Spawns `script` with `env` and resolves once every `ready` pattern has appeared in its output. */
export const start = (script: string, env: Record<string, string | undefined>, ready: ReadonlyArray<RegExp>): Promise<Started> =>
  new Promise((resolve, reject) => {
    const began = performance.now()
    const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    let settled = false
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done()
        child.once("exit", () => done())
        child.kill("SIGTERM")
      })
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (!settled && ready.every((pattern) => pattern.test(output))) {
        settled = true
        resolve({ child, output: () => output, startMillis: performance.now() - began, stop })
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.on("exit", (code) => {
      if (!settled) reject(new Error(`${script} exited with ${code}: ${output}`))
    })
  })

/** The address a started server logged. */
export const addressOf = (started: Started) => /Listening on (http:\/\/[0-9.:]+)/.exec(started.output())?.[1] ?? ""
