// Starts the real server (`packages/app/src/main.ts`) as a child process and waits for what it must print.
import { Schema } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"

/** A started child process and what it printed. */
export interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  readonly startMillis: number
  readonly stop: () => Promise<void>
}

const root = join(import.meta.dirname, "..", "..", "..")

const StartScript = Schema.fromJsonString(Schema.Struct({ scripts: Schema.Struct({ start: Schema.String }) }))

// `npm start`'s Node flags for the script it runs (`node <flags> <script>`) in the checkout at `cwd`, so the bench
// measures that very process.
const nodeFlagsOf = (script: string, cwd: string): Array<string> => {
  const [node, ...words] = Schema.decodeUnknownSync(StartScript)(readFileSync(join(cwd, "package.json"), "utf8")).scripts.start.split(/\s+/)
  const flags = words.filter((word) => word.startsWith("--"))
  return node === "node" && words.at(-1) === script ? flags : []
}

/**
 * Spawns `script` with `env` and resolves once every `ready` pattern has appeared in its output; `cwd`, another checkout
 * of the project (an A/B bench's baseline), runs that checkout's script instead.
 */
export const start = (script: string, env: Record<string, string | undefined>, ready: ReadonlyArray<RegExp>, cwd: string = root): Promise<Started> =>
  new Promise((resolve, reject) => {
    const began = performance.now()
    // No balancer watches a bench's server: a stop need not wait for one to notice.
    const environment = { ...process.env, ATRIUM_DRAIN_DELAY: "0 seconds", ...env }
    const child = spawn(process.execPath, [...nodeFlagsOf(script, cwd), script], { cwd, env: environment, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    let settled = false
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done()
        child.once("exit", () => done())
        child.kill("SIGTERM")
      })
    const onData = (chunk: Buffer) => {
      // Once ready, the server's access log is drained unread: the load generator shares this process and must not
      // spend its time keeping every log line the server writes.
      if (settled) return
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
