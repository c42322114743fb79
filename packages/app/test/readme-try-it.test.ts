// README "Try it", run as written: the `npm start` line starts the server (with the environment it names, on a fresh
// embedded database), then every line of the other `sh` blocks goes to one bash session, in order. Only the
// placeholders the README names are replaced: the ports 3000/4000, and `sk_live_…`, `at_…`, `ws_…`, `key_…`, `whe_…`,
// `task_…`, `fr_…`, `dom_…` by the values the commands before them printed. No outside network is needed.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"
import { bashSession, commandsOf, freePort, shBlocks } from "./support/readme-shell.ts"

const workDir = tempWorkDir("atrium-readme-")
const dataDir = join(workDir, "data")

/** The fenced `sh` blocks of the README's "Try it" section, custom domains included (up to "Operator CLI"). */
const tryItBlocks = (): ReadonlyArray<string> => shBlocks("## Try it", "### Operator CLI")

let server: ServerProcess | undefined
let session: ReturnType<typeof bashSession> | undefined

afterAll(async () => {
  session?.close()
  await server?.stop()
  rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

describe("README: Try it", () => {
  const blocks = tryItBlocks()
  let port = 0
  let receiverPort = 0
  const values = new Map<string, string>()

  beforeAll(async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4)
    const start = commandsOf(blocks[0] ?? "")
    expect(start).toHaveLength(1)
    const startLine = start[0] ?? ""
    expect(startLine).toMatch(/npm start\b/)
    // The variables the start line sets, as written.
    const env = Object.fromEntries([...startLine.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((match) => [match[1] ?? "", match[2] ?? ""]))
    port = await freePort()
    receiverPort = await freePort()
    server = await startServer({ ...env, PORT: String(port), ATRIUM_DATA_DIR: dataDir }, /sk_live_\w+/)
    const key = /First start:[\s\S]*?\b(sk_live_\w+)/.exec(server.output())?.[1]
    expect(key, "the first start prints the key").toBeDefined()
    values.set("sk_live_", key ?? "")
    session = bashSession({ DATABASE_URL: undefined, ATRIUM_DATA_DIR: dataDir, PORT: String(port) })
  }, 180_000)

  it("prints the first-start key on stderr, never among the JSON log lines", () => {
    const logLines = (server?.output() ?? "").split("\n").filter((line) => line.startsWith("{"))
    expect(logLines.length).toBeGreaterThan(0)
    expect(logLines.some((line) => line.includes(values.get("sk_live_") ?? "none"))).toBe(false)
  })

  it("every command of the other blocks answers as the README says, with no outside network", async () => {
    const placeholders = ["sk_live_", "at_", "ws_", "key_", "whe_", "task_", "fr_", "dom_"]
    const substitute = (command: string) => {
      let out = command.replaceAll("localhost:3000", `localhost:${port}`).replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`)
        .replace(/\.listen\(4000\)/, `.listen(${receiverPort})`)
      const code = out.replace(/\s#\s.*$/, "")
      for (const prefix of placeholders) {
        if (!code.includes(`${prefix}…`)) continue
        const value = values.get(prefix)
        expect(value, `a value for ${prefix}… before: ${command}`).toBeDefined()
        out = out.replaceAll(`${prefix}…`, value ?? "")
      }
      return out
    }
    // What a command printed names the values later commands use (the first of each kind it printed).
    const learn = (command: string, output: string) => {
      const seen = (prefix: string, pattern: RegExp) => {
        const found = pattern.exec(output)?.[1]
        if (found !== undefined) values.set(prefix, found)
      }
      seen("at_", /"accessToken":"(at_[\w-]+)"/)
      seen("whe_", /"id":"(whe_\w+)"/)
      seen("task_", /"id":"(task_\w+)"/)
      seen("fr_", /"featureRequest":\{"id":"(fr_\w+)"/)
      seen("dom_", /"id":"(dom_\w+)"/)
      if (command.includes("list-keys")) seen("key_", /"id":"(key_\w+)"/)
      if (command.includes("list-workspaces")) seen("ws_", /"id":"(ws_\w+)","slug":"demo"/)
    }
    const answers: Array<{ readonly command: string; readonly status: number; readonly output: string }> = []
    for (const block of blocks.slice(1)) {
      for (const command of commandsOf(block)) {
        const result = await (session?.run(substitute(command), 90_000) ?? Promise.reject(new Error("no session")))
        answers.push({ command, ...result })
        learn(command, result.output)
        expect(result.status, `${command}\n${result.output}`).toBe(0)
        // No answer of the tour is a server error, a refusal for a missing feature, or an unknown route.
        expect(result.output, command).not.toMatch(/"code":"(not_entitled|internal_error|route_not_found|not_found|forbidden|invalid_request)"/)
        if (command.startsWith("curl -s ") && !command.includes("head -c")) expect(result.output.trim().length, command).toBeGreaterThan(0)
      }
    }
    const find = (fragment: string) => {
      const answer = answers.find((candidate) => candidate.command.includes(fragment))
      expect(answer, `a command with ${fragment}; ran:\n${answers.map((a) => `${a.command}\n  ${a.output.slice(0, 300)}`).join("\n")}`).toBeDefined()
      return { output: answer?.output ?? "" }
    }
    expect(find("curl -si localhost:3000/api/v1/workspaces/current").output).toContain("missing_credentials")
    expect(find("/workspaces/current -H").output).toContain('"slug":"demo"')
    // The receiver on loopback printed the test delivery.
    expect(answers.map((answer) => answer.output).join("\n")).toMatch(/(^|\})\{"id":"evt_\w+","type":"webhook\.test"/m)
    expect(find("add-member").output).toMatch(/"role":"admin"/)
    expect(find("/organization -H").output).toContain('"name":"Demo"')
    expect(find("/roll").output).toMatch(/"key":"sk_live_\w+"/)
    expect(find("/api/mobile/domains -H").output).toContain('"status":"pending_verification"')
  }, 600_000)
})
