// The gated server never leaves an accepted request unanswered: held until the app's handler comes, 503 once it went.
import { serverRequestIdTime } from "@atrium/domain"
import { afterEach, describe, expect, it } from "vitest"
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import { Agent, type IncomingMessage, request, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { gatedServer, type GatedServer } from "../../src/service-life/gated-server.ts"

interface Answer {
  readonly status: number
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

const get = (port: number, agent: Agent) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => body += chunk)
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end()
  })

const listening = (gate: GatedServer) =>
  new Promise<number>((resolve) => {
    gate.server.listen(0, "127.0.0.1", () => {
      const address: AddressInfo | string | null = gate.server.address()
      resolve(typeof address === "object" && address !== null ? address.port : 0)
    })
  })

const answered = (req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end(`handled ${req.url}`)

let open: Array<GatedServer> = []
afterEach(async () => {
  await Promise.all(open.map((gate) => new Promise((resolve) => {
    gate.server.close(resolve)
    gate.server.closeAllConnections()
  })))
  open = []
})

describe("gatedServer", () => {
  it("holds a request that arrives before the app's handler and hands it over once the handler is attached", async () => {
    const gate = gatedServer({})
    open.push(gate)
    const port = await listening(gate)
    const agent = new Agent({ keepAlive: false })
    const early = get(port, agent)
    // Node announces a parsed request on this channel just before its `request` event: it is held, no handler exists.
    await new Promise<void>((resolve) => {
      const arrived = () => {
        unsubscribe("http.server.request.start", arrived)
        resolve()
      }
      subscribe("http.server.request.start", arrived)
    })
    gate.server.on("request", answered)
    expect(await early).toMatchObject({ status: 200, body: "handled /" })
    agent.destroy()
  })

  it("answers 503 with a time-carrying request id, retry-after and connection: close once the handler is removed", async () => {
    const gate = gatedServer({})
    open.push(gate)
    const port = await listening(gate)
    gate.server.on("request", answered)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    expect((await get(port, agent)).status).toBe(200)
    gate.server.removeListener("request", answered)
    const before = Date.now()
    const late = await get(port, agent)
    expect(late.status).toBe(503)
    expect(late.headers["retry-after"]).toBe("1")
    expect(late.headers.connection).toBe("close")
    expect(late.headers["content-type"]).toBe("application/problem+json")
    const requestId = String(late.headers["x-request-id"])
    expect(JSON.parse(late.body)).toMatchObject({ status: 503, code: "unavailable", requestId })
    expect(serverRequestIdTime(requestId)).toBeGreaterThanOrEqual(before)
    expect(serverRequestIdTime(requestId)).toBeLessThanOrEqual(Date.now())
    agent.destroy()
  })
})
