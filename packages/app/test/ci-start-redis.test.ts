import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { createConnection, createServer } from "node:net"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..", "..")
const startRedis = join(root, ".ci", "start-redis")

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

// One RESP command on a fresh connection; resolves with the first line of the answer.
const command = (port: number, text: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => socket.write(`${text}\r\n`))
    socket.once("data", (chunk) => {
      socket.destroy()
      resolve(chunk.toString().split("\r\n")[0] ?? "")
    })
    socket.once("error", reject)
  })

describe(".ci/start-redis (what .ci/run does on a machine without Redis)", () => {
  it("starts Debian's redis-server on a port where nothing answers, and leaves an answering one alone", async () => {
    const port = await freePort()
    execFileSync("bash", [startRedis, String(port)], { stdio: "pipe" })
    try {
      expect(await command(port, "PING")).toBe("+PONG")
      // A second run finds it answering and starts nothing more.
      execFileSync("bash", [startRedis, String(port)], { stdio: "pipe" })
      expect(await command(port, "PING")).toBe("+PONG")
    } finally {
      const pid = Number(readFileSync(`/tmp/atrium-ci-redis-${port}.pid`, "utf8").trim())
      process.kill(pid, "SIGTERM")
    }
  }, 30_000)

  it(".ci/run starts it before the tests and always points the Redis suites at it", () => {
    const run = readFileSync(join(root, ".ci", "run"), "utf8")
    expect(run).toMatch(/bash \.ci\/start-redis 6379\n\s*export ATRIUM_REDIS_URL="redis:\/\/127\.0\.0\.1:6379"/)
    expect(run).toMatch(/missing\+=\(redis-server\)/)
    expect(run.indexOf("start-redis")).toBeLessThan(run.indexOf("npm test"))
  })
})
