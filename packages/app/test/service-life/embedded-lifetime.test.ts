// Issue 24: the embedded PostgreSQL server never outlives the last Atrium process using it, however that process ended.
import { afterAll, describe, expect, it } from "vitest"
import { existsSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs"
import { join } from "node:path"
import { startServer, tempWorkDir } from "../server-process.ts"
import { probe } from "./probe.ts"

const work = tempWorkDir("atrium-embedded-lifetime-")
afterAll(() => rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const postmasterOf = (dataDir: string) => Number.parseInt(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10)

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// Milliseconds until `pid` is gone, or undefined when it still runs after `withinMs`.
const goneWithin = async (pid: number, withinMs: number) => {
  const began = performance.now()
  while (performance.now() - began < withinMs) {
    if (!isAlive(pid)) return performance.now() - began
    await sleep(100)
  }
  return undefined
}

// Resolves once `file` no longer exists (watched, not polled); rejects when it still does after `withinMs`.
const removed = (file: string, withinMs: number) =>
  new Promise<void>((resolve, reject) => {
    const watcher = watch(join(file, ".."))
    const timer = setTimeout(() => finish(new Error(`${file} still there after ${withinMs} ms`)), withinMs)
    const finish = (error?: Error) => {
      watcher.close()
      clearTimeout(timer)
      if (error === undefined) resolve()
      else reject(error)
    }
    watcher.on("change", () => existsSync(file) || finish())
    if (!existsSync(file)) finish()
  })

// The server's user files, one per Atrium process (named by its pid), which the watchdog reads once a second.
const userFile = (dataDir: string, pid: number | undefined) => join(dataDir, "postgres.users", String(pid))

const killed = (child: { readonly once: (event: "exit", listener: () => void) => unknown; readonly kill: (signal: NodeJS.Signals) => boolean }) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

describe("the embedded database's lifetime", () => {
  it("two servers share it; kill -9 of one leaves it to the other; kill -9 of the last stops it within seconds", async () => {
    const dataDir = join(work, "shared")
    const first = await startServer({ ATRIUM_DATA_DIR: dataDir })
    const second = await startServer({ ATRIUM_DATA_DIR: dataDir })
    const postmaster = postmasterOf(dataDir)
    await killed(first.child)
    // The watchdog's round that forgets the killed server decides at once, with the other one alive, to keep going; a
    // dead user's file written back is forgotten only by the next round, which runs only if that one kept the server.
    const dead = userFile(dataDir, first.child.pid)
    await removed(dead, 10_000)
    writeFileSync(dead, "")
    await removed(dead, 10_000)
    expect(isAlive(postmaster)).toBe(true)
    expect(await probe(portOf(second.baseUrl), "/readyz", 3_000)).toMatchObject({ outcome: "answered", status: 200 })
    await killed(second.child)
    const gone = await goneWithin(postmaster, 10_000)
    console.log(`embedded database: gone ${gone === undefined ? "never (10 s)" : `${Math.round(gone)} ms`} after its last server was killed -9`)
    expect(gone).toBeDefined()
  }, 120_000)

  it("a server whose stdout was closed goes on serving; stopped, it stops the database", async () => {
    const dataDir = join(work, "stdout")
    const server = await startServer({ ATRIUM_DATA_DIR: dataDir })
    const postmaster = postmasterOf(dataDir)
    const exited = new Promise<string>((resolve) => server.child.once("exit", (code) => resolve(`exited with ${code}`)))
    // The reader of its stdout goes away (a closed terminal, a log pipe that died): every log line now fails with EPIPE.
    server.child.stdout?.destroy()
    const port = portOf(server.baseUrl)
    // A request's access-log line is the first write to fail; the server says so on stderr, or dies of it.
    expect(await probe(port, "/api/v1/workspaces/current", 3_000)).toMatchObject({ outcome: "answered", status: 401 })
    expect(await Promise.race([server.printed("stdout failed (EPIPE)").then(() => "serving on"), exited])).toBe("serving on")
    for (let i = 0; i < 20; i++) {
      expect(await probe(port, "/api/v1/workspaces/current", 3_000)).toMatchObject({ outcome: "answered", status: 401 })
    }
    expect(server.child.exitCode).toBeNull()
    // Its stop writes the last lines (access log and shutdown) to the closed stdout too, and still exits 0.
    expect(await server.stop()).toBe(0)
    expect(await goneWithin(postmaster, 10_000)).toBeDefined()
  }, 120_000)
})
