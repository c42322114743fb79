// The operator CLI's refusals of a bad invocation and its help, as a person at a terminal sees them.
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..", "..")

// Runs the CLI with no database reachable: these invocations must be answered before any handler runs.
const atrium = (...args: Array<string>) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(process.execPath, ["packages/app/src/cli.ts", ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }
    }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
  })

describe("the atrium CLI", () => {
  it("refuses a bad flag value, a missing value and an unknown command in one line on stderr, exit code 1", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["create-key", "--workspace", "demo", "--scope", "nope"], /^atrium: Invalid value for flag --scope: "nope"\..* \(see: atrium create-key --help\)$/],
      [["create-key", "--workspace"], /^atrium: Missing value for flag --workspace\b.*\(see: atrium create-key --help\)$/],
      [["no-such-command"], /^atrium: Unknown subcommand "no-such-command".*\(see: atrium --help\)$/]
    ]
    for (const [args, line] of cases) {
      const result = await atrium(...args)
      expect(result.code, args.join(" ")).toBe(1)
      expect(result.stdout, args.join(" ")).toBe("")
      const lines = result.stderr.trim().split("\n")
      expect(lines, args.join(" ")).toHaveLength(1)
      expect(lines[0]).toMatch(line)
      expect(result.stderr).not.toContain("Help requested")
    }
  }, 60_000)

  it("aligns every subcommand's description in one column in --help", async () => {
    const result = await atrium("--help")
    expect(result.code).toBe(0)
    const section = result.stdout.split("SUBCOMMANDS\n")[1] ?? ""
    const rows = section.split("\n").filter((row) => /^ {2}[a-z]/.test(row))
    expect(rows.length).toBeGreaterThan(10)
    expect(rows.some((row) => row.startsWith("  set-feature-request-status "))).toBe(true)
    const columns = new Set(rows.map((row) => /^ {2}[a-z-]+ +/.exec(row)?.[0].length))
    expect([...columns]).toHaveLength(1)
  }, 60_000)
})
