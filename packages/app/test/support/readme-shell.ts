// What the README tests share: a section's fenced `sh` blocks, the commands in a block, free ports and one bash session.
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"

export const root = join(import.meta.dirname, "..", "..", "..", "..")

/** The README's text. */
export const readme = (): string => readFileSync(join(root, "README.md"), "utf8")

/** The fenced `sh` blocks between two headings (`from` included, `to` excluded; `to` absent: the next heading of `from`'s level). */
export const shBlocks = (from: string, to?: string): ReadonlyArray<string> => {
  const text = readme()
  const start = text.indexOf(`\n${from}\n`)
  if (start < 0) return []
  const level = /^#+/.exec(from)?.[0] ?? "##"
  const next = to === undefined ? new RegExp(`\\n${level} `, "g") : undefined
  if (next !== undefined) next.lastIndex = start + from.length + 1
  const end = to === undefined ? next?.exec(text)?.index ?? text.length : text.indexOf(`\n${to}\n`)
  const section = text.slice(start, end < 0 ? text.length : end)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "")
}

/** Commands of a block: continuation lines joined, comment-only lines dropped (the `# →` lines show answers). */
export const commandsOf = (block: string): ReadonlyArray<string> =>
  block.replace(/\\\n\s*/g, "").split("\n").map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith("#"))

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** One bash session in the repository: a command's output is what it printed before its end marker. */
export const bashSession = (env: Record<string, string | undefined>) => {
  const child: ChildProcess = spawn("bash", ["--noprofile", "--norc"], { cwd: root, env: { ...process.env, ...env }, detached: true, stdio: ["pipe", "pipe", "pipe"] })
  let buffer = ""
  const onData = (chunk: Buffer) => { buffer += chunk.toString() }
  child.stdout?.on("data", onData)
  child.stderr?.on("data", onData)
  let counter = 0
  const run = (command: string, timeoutMs = 60_000) =>
    new Promise<{ readonly output: string; readonly status: number }>((resolve, reject) => {
      const marker = `@@done-${++counter}@@`
      const from = buffer.length
      const timer = setTimeout(() => reject(new Error(`timed out: ${command}\n${buffer.slice(from)}`)), timeoutMs)
      const check = () => {
        const found = new RegExp(`${marker} (\\d+)`).exec(buffer.slice(from))
        if (found === null) return
        clearTimeout(timer)
        child.stdout?.off("data", check)
        child.stderr?.off("data", check)
        resolve({ output: buffer.slice(from, from + found.index), status: Number(found[1]) })
      }
      child.stdout?.on("data", check)
      child.stderr?.on("data", check)
      child.stdin?.write(`${command}\necho "" ; echo "${marker} $?"\n`)
    })
  const close = () => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM")
      } catch {
        // Already gone.
      }
    }
  }
  return { run, close }
}
