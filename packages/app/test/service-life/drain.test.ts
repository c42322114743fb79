// Issue 24: liveness and readiness, and a drain on SIGTERM that answers everything begun and exits 0 in bounded time.
import { afterAll, describe, expect, it } from "vitest"
import { rmSync } from "node:fs"
import { Agent, request } from "node:http"
import type { Socket } from "node:net"
import { join } from "node:path"
import { startServer, tempWorkDir } from "../server-process.ts"
import { probe } from "./probe.ts"

const work = tempWorkDir("atrium-drain-")
afterAll(() => rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port)

// A sign-in whose body's rest is sent when `finish` is called: a request begun before the stop that ends after it.
// `begun` resolves once its head and first bytes were written to the connection.
const slowRequest = (port: number) => {
  let sent = () => {}
  let finish = () => {}
  const begun = new Promise<void>((resolve) => sent = resolve)
  const answer = new Promise<{ readonly status: number } | { readonly error: string }>((resolve) => {
    const body = JSON.stringify({ email: "nobody@example.com", password: "wrong password here" })
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/api/auth/sign-in",
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }))
    })
    req.on("error", (error) => resolve({ error: error.message }))
    req.flushHeaders()
    req.write(body.slice(0, 10), () => sent())
    finish = () => req.end(body.slice(10))
  })
  return { begun, answer, finish }
}

describe("liveness, readiness and the drain", () => {
  it("GET /healthz and /readyz answer 200; on SIGTERM readiness turns 503 at once, the server serves the drain delay, then refuses new connections, answers the request begun, closes an idle keep-alive connection and exits 0", async () => {
    const server = await startServer({ ATRIUM_DATA_DIR: join(work, "data"), ATRIUM_DRAIN_DELAY: "2 seconds" })
    const port = portOf(server.baseUrl)
    const live = await probe(port, "/healthz", 5_000)
    expect(live).toMatchObject({ outcome: "answered", status: 200 })
    expect(JSON.parse(live.body ?? "")).toEqual({ status: "live" })
    const ready = await probe(port, "/readyz", 5_000)
    expect(ready).toMatchObject({ outcome: "answered", status: 200 })
    expect(JSON.parse(ready.body ?? "")).toEqual({ status: "ready" })

    // An idle keep-alive connection, as a client or balancer leaves them.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const idleSocket = await new Promise<Socket>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/healthz", agent }, (res) => {
        res.resume()
        res.on("end", () => resolve(socket))
      })
      let socket: Socket
      req.once("socket", (assigned) => socket = assigned)
      req.on("error", reject)
      req.end()
    })
    const idleClosed = new Promise<number>((resolve) => idleSocket.once("close", () => resolve(performance.now())))

    const slow = slowRequest(port)
    await slow.begun
    const signalled = performance.now()
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)))
    server.child.kill("SIGTERM")
    await server.printed("draining: readiness is 503")

    const draining = await probe(port, "/readyz", 2_000)
    expect(draining).toMatchObject({ outcome: "answered", status: 503 })
    expect(JSON.parse(draining.body ?? "")).toMatchObject({ code: "unavailable", reasons: ["draining"] })
    // Still serving while the balancer notices.
    expect(await probe(port, "/healthz", 2_000)).toMatchObject({ outcome: "answered", status: 200 })
    expect(await probe(port, "/api/v1/workspaces/current", 2_000)).toMatchObject({ outcome: "answered", status: 401 })

    await server.printed("stopping: no new connections")
    expect((await probe(port, "/healthz", 2_000)).outcome).toBe("refused")
    // The idle keep-alive connection did not hold the stop up until its own timeout (5 s).
    expect(await idleClosed - signalled).toBeLessThan(3_000)

    // The request begun before the signal ends now, once the server no longer takes connections, and is answered.
    slow.finish()
    const answered = await slow.answer
    expect(answered).toHaveProperty("status")
    expect(await exited).toBe(0)
    const stopMillis = performance.now() - signalled
    console.log(`drain: SIGTERM to exit ${Math.round(stopMillis)} ms (drain delay 2 s, a request begun ending after the stop began)`)
    expect(stopMillis).toBeLessThan(8_000)
    agent.destroy()
  }, 90_000)

  it("a second signal during the drain exits at once", async () => {
    const server = await startServer({ ATRIUM_DATA_DIR: join(work, "data"), ATRIUM_DRAIN_DELAY: "30 seconds" })
    const port = portOf(server.baseUrl)
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)))
    server.child.kill("SIGTERM")
    await server.printed("draining: readiness is 503")
    expect(await probe(port, "/readyz", 2_000)).toMatchObject({ outcome: "answered", status: 503 })
    const second = performance.now()
    server.child.kill("SIGTERM")
    expect(await exited).toBe(143)
    expect(performance.now() - second).toBeLessThan(2_000)
  }, 90_000)
})
