// README "Two commands" and "Running it as a service", as far as a test can run them: `npm start` itself (npm runs
// package.json's start script, the pinned Node and its flags) on a fresh data folder and a free port, answered by the
// health and readiness lines as written. `npm install` is not run again (the suite runs in the tree it installed), nor is
// `bash .ci/run` (it runs this suite): the test holds `.ci/run` to installing with `npm ci` and then running `npm test`,
// the README's test command. The last block lists every README section with shell commands and the test that runs them.
import { afterAll, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { tempWorkDir } from "./server-process.ts"
import { bashSession, commandsOf, freePort, readme, root, shBlocks } from "./support/readme-shell.ts"

const workDir = tempWorkDir("atrium-readme-start-")
let started: ReturnType<typeof spawnGroup> | undefined
let session: ReturnType<typeof bashSession> | undefined

// npm and the server it started are one process group (as in a terminal, where Ctrl-C reaches both): it is signalled
// whole, and has ended once no process of it is left (the server's own stop included). Each of them holds the output
// pipe npm was given, so npm's side of it closes when the last one ends.
function spawnGroup(command: string, args: ReadonlyArray<string>, options: SpawnOptions) {
  const child: ChildProcess = spawn(command, args, { ...options, detached: true })
  let running = true
  const ended = new Promise<void>((resolve) => child.once("close", () => resolve(void (running = false))))
  return { child, ended, running: () => running }
}
const stopGroup = async (group: ReturnType<typeof spawnGroup> | undefined) => {
  const pid = group?.child.pid
  if (group === undefined || pid === undefined || !group.running()) return
  process.kill(-pid, "SIGTERM")
  await Promise.race([
    group.ended,
    new Promise((_, reject) => setTimeout(() => reject(new Error("npm start still running 60 s after SIGTERM")), 60_000).unref())
  ])
}

// A server started by `command` in its own group, on the embedded database of `workDir`: resolved once it listens, with
// everything its group printed so far (and since, through `output`).
const startListening = async (command: string, args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
  const port = await freePort()
  const group = spawnGroup(command, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: undefined, PORT: String(port), ATRIUM_DATA_DIR: join(workDir, "data"), ATRIUM_DRAIN_DELAY: "0 seconds", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  started = group
  let output = ""
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes(`Listening on http://127.0.0.1:${port}`)) resolve()
    }
    group.child.stdout?.on("data", onData)
    group.child.stderr?.on("data", onData)
    group.child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output}`)))
  })
  return { group, port, output: () => output }
}

afterAll(async () => {
  session?.close()
  await stopGroup(started)
  rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

describe("README: Two commands", () => {
  const [block = ""] = shBlocks("## Two commands")
  const [install, ci] = commandsOf(block).map((line) => line.replace(/\s#\s.*$/, "").trim())

  it("`npm start` serves on PORT with the embedded database, and /healthz and /readyz answer as written", async () => {
    expect(install).toBe("npm install && npm start")
    const { port, output } = await startListening("npm", ["start"])
    // npm ran the script package.json names, with its Node flags.
    const script = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start
    expect(output()).toContain(`> ${script}`)
    const [health = ""] = shBlocks("## Running it as a service")
    session = bashSession({})
    const answers = []
    for (const command of commandsOf(health)) {
      const result = await session.run(command.replaceAll("localhost:3000", `localhost:${port}`))
      expect(result.status, command).toBe(0)
      answers.push(result.output)
    }
    expect(answers[0]).toContain('{"status":"live"}')
    expect(answers[1]).toContain('{"status":"ready"}')
    await stopGroup(started)
  }, 180_000)

  it("`npm start` stopped by a SIGTERM to npm alone (a supervisor that signals one pid) still drains the server and ends", async () => {
    const { group, output } = await startListening("npm", ["start"])
    // npm ends at once and does not pass the signal on; the server, left to init, must notice and stop by itself.
    group.child.kill("SIGTERM")
    await Promise.race([
      group.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`the server outlived npm by 20 s:\n${output()}`)), 20_000).unref())
    ])
    expect(output()).toContain("is gone: stopping")
    expect(output()).toContain("stopping: no new connections")
  }, 180_000)

  it("a server started outside npm by a shell that then ends (`nohup … &`) keeps serving: only npm's end stops it", async () => {
    const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start
    const { group, port, output } = await startListening("sh", ["-c", `${script.replace(/^node /, `${process.execPath} `)} & wait`], { npm_lifecycle_event: undefined })
    // Its shell ends (a logout); past two of the server's one-second looks at its parent, it must still be serving.
    const shellEnded = new Promise((resolve) => group.child.once("exit", resolve))
    group.child.kill("SIGKILL")
    await shellEnded
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
    expect(output()).not.toContain("is gone: stopping")
    await stopGroup(group)
  }, 180_000)

  it("`bash .ci/run` installs with `npm ci`, then runs `npm test`, which type-checks and runs every project", () => {
    expect(ci).toBe("bash .ci/run")
    const run = readFileSync(join(root, ".ci", "run"), "utf8").split("\n").map((line) => line.trim())
    const installAt = run.findIndex((line) => line.startsWith("npm ci"))
    const testAt = run.findIndex((line) => line.startsWith("npm test"))
    expect(installAt).toBeGreaterThanOrEqual(0)
    expect(testAt).toBeGreaterThan(installAt)
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.test).toBe("tsc -b && vitest run --config vitest.workspace.ts")
    expect(readme()).toContain("`npm test`\nalone type-checks (`tsc -b`) and runs every test")
  })
})

// Every README section with shell commands, and what runs them. A new section with commands fails here until it is
// placed: run by a test (its file), or named as not run in the suite and why.
const coverage: Record<string, string> = {
  "## Two commands": "test: packages/app/test/readme-commands.test.ts (npm start; .ci/run held to npm ci + npm test)",
  "## Try it": "test: packages/app/test/readme-try-it.test.ts",
  "### Settings → Developers, in a browser": "test: packages/app/test/readme-try-it.test.ts",
  "### Operator CLI": "test: packages/app/test/readme-operator-cli.test.ts",
  "## Running it as a service": "test: packages/app/test/readme-commands.test.ts (health lines); the N-process lines: packages/app/test/service-life/load-balanced.test.ts runs deploy/haproxy.cfg over two processes",
  "## The contract": "not run: rewrites the committed snapshots; packages/adapters-http/test/contract-snapshot.test.ts runs its comparison",
  "## Published packages": "not run here: .ci/run runs examples/embedding/run.sh (what packages:embedding runs, packing included); scripts/test/api-report.test.ts runs api:report's comparison",
  "## Benchmark": "not run: minutes of load on a quiet machine, by hand"
}

describe("README: every section with commands is run or named", () => {
  it("places each section that has a `sh` block", () => {
    const text = readme()
    const sections = [...text.matchAll(/^(#{2,3} .+)$/gm)].map((match) => match[1] ?? "")
    const withCommands = sections.filter((heading) => shBlocks(heading, sections[sections.indexOf(heading) + 1]).length > 0)
    expect(withCommands.filter((heading) => !(heading in coverage)), "README sections with commands no test runs or names").toEqual([])
    for (const place of Object.values(coverage)) {
      for (const file of place.matchAll(/(packages\/\S+\.test\.ts|scripts\/\S+\.test\.ts|examples\/\S+\.sh)/g)) {
        expect(existsSync(join(root, file[1] ?? "")), file[1]).toBe(true)
      }
    }
  })
})
