import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { HttpServer } from "effect/http"
import { AppUnderTest, seedKey, send } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"

// Writes the request by hand on a socket: repeated headers go out exactly as given.
const rawGet = (port: number, path: string, headers: ReadonlyArray<readonly [string, string]>) =>
  Effect.callback<{ readonly status: number; readonly body: string }>((resume) => {
    const socket = connect(port, "127.0.0.1", () => {
      const lines = [`GET ${path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close", ...headers.map(([name, value]) => `${name}: ${value}`)]
      socket.write(`${lines.join("\r\n")}\r\n\r\n`)
    })
    let text = ""
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
    socket.on("end", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)
      resume(Effect.succeed({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) }))
    })
  })

describe("ids and headers at the edge", () => {
  it.effect("an id longer than 100 characters is 404 after authentication and 401 before it, never 405", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const team = yield* seedTeam
      for (const length of [101, 500, 4000]) {
        const id = `whe_${"a".repeat(length)}`
        const anonymous = yield* send("GET", `/api/v1/webhook-endpoints/${id}`)
        assert.strictEqual(anonymous.status, 401, `${length}: ${anonymous.text}`)
        const keyed = yield* send("GET", `/api/v1/webhook-endpoints/${id}`, { key })
        assert.strictEqual(keyed.status, 404, `${length}: ${keyed.text}`)
        assert.strictEqual(keyed.body.code, "not_found")
        assert.isUndefined(keyed.headers.allow)
        const deleted = yield* send("DELETE", `/api/mobile/api-keys/key_${"b".repeat(length)}`, { key: team.owner.token })
        assert.strictEqual(deleted.status, 404, `${length}: ${deleted.text}`)
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a malformed id is 404 not_found, like an unknown one", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      for (const id of ["nope", "whe_", "whe_%00", "whe_%F0%9F%98%80", "msg_123"]) {
        const reply = yield* send("GET", `/api/v1/webhook-endpoints/${id}`, { key })
        assert.strictEqual(reply.status, 404, `${id}: ${reply.text}`)
        assert.strictEqual(reply.body.code, "not_found")
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("duplicate Authorization headers are 400, whichever would have worked", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const server = yield* HttpServer.HttpServer
      const port = "port" in server.address ? server.address.port : 0
      const one = yield* rawGet(port, "/api/v1/workspaces/current", [["authorization", `Bearer ${key}`]])
      assert.strictEqual(one.status, 200)
      for (const pair of [[`Bearer ${key}`, "Bearer sk_live_x"], ["Bearer sk_live_x", `Bearer ${key}`], [`Bearer ${key}`, `Bearer ${key}`]]) {
        const two = yield* rawGet(port, "/api/v1/workspaces/current", pair.map((value) => ["Authorization", value] as const))
        assert.strictEqual(two.status, 400, two.body)
        assert.include(two.body, "invalid_request")
      }
    }).pipe(Effect.provide(AppUnderTest())))
})
