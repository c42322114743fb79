import { assert, describe, it } from "@effect/vitest"
import { serverRequestIdTime } from "@atrium/domain"
import { Effect } from "effect"
import { HttpServer } from "effect/http"
import { request as httpRequest } from "node:http"
import { AppUnderTest, seedKey, send } from "./harness.ts"
import { TestAppUnderTest } from "./test-api.ts"

const oneMiB = 1024 * 1024

// Streams a body without Content-Length (chunked), so only the limit enforced while reading can catch it.
const postChunked = (port: number, path: string, key: string, bytes: number) =>
  Effect.callback<{ readonly status: number; readonly body: string }>((resume) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "transfer-encoding": "chunked" }
    }, (res) => {
      let body = ""
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
    })
    // The server may close early once it has answered 413.
    req.on("error", () => {})
    const chunk = Buffer.alloc(64 * 1024, "a")
    req.write(`{"message":"`)
    for (let sent = 0; sent < bytes; sent += chunk.length) req.write(chunk)
    req.end(`"}`)
  })

describe("envelope", () => {
  it.effect("an unknown route is a 404 route_not_found problem", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/api/v1/nothing-here")
      assert.strictEqual(reply.status, 404)
      assert.strictEqual(reply.body.code, "route_not_found")
      assert.strictEqual(reply.headers["content-type"], "application/problem+json")
      assert.strictEqual(reply.body.status, 404)
      assert.isString(reply.body.type)
      assert.isString(reply.body.title)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a wrong method on a known path is 405 method_not_allowed with Allow", () =>
    Effect.gen(function*() {
      const reply = yield* send("DELETE", "/api/v1/workspaces/current")
      assert.strictEqual(reply.status, 405)
      assert.strictEqual(reply.body.code, "method_not_allowed")
      assert.include(reply.headers["allow"] ?? "", "GET")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a body over 1 MiB is 413 payload_too_large, by Content-Length", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey({ scopes: ["write"] })
      const reply = yield* send("POST", "/api/v1/test/echo", { key, body: JSON.stringify({ message: "a".repeat(oneMiB) }) })
      assert.strictEqual(reply.status, 413)
      assert.strictEqual(reply.body.code, "payload_too_large")
      assert.strictEqual(reply.headers["content-type"], "application/problem+json")
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("a body over 1 MiB is 413 payload_too_large while reading a chunked body", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey({ scopes: ["write"] })
      const server = yield* HttpServer.HttpServer
      const port = "port" in server.address ? server.address.port : 0
      assert.isAbove(port, 0)
      const reply = yield* postChunked(port, "/api/v1/test/echo", key, oneMiB + 1)
      assert.strictEqual(reply.status, 413)
      assert.include(reply.body, "payload_too_large")
      // A body under the limit still goes through the same path.
      const small = yield* postChunked(port, "/api/v1/test/echo", key, 1024)
      assert.strictEqual(small.status, 200)
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("a non-JSON body on a JSON route is 415 unsupported_media_type", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey({ scopes: ["write"] })
      const reply = yield* send("POST", "/api/v1/test/echo", { key, body: "message=hi", contentType: "text/plain" })
      assert.strictEqual(reply.status, 415)
      assert.strictEqual(reply.body.code, "unsupported_media_type")
      assert.strictEqual(reply.headers["content-type"], "application/problem+json")
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("a bad query parameter is 400 invalid_request naming its path", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const reply = yield* send("GET", "/api/v1/test/items?limit=abc", { key })
      assert.strictEqual(reply.status, 400)
      assert.strictEqual(reply.body.code, "invalid_request")
      assert.strictEqual(reply.headers["content-type"], "application/problem+json")
      const errors = reply.body.errors
      assert.isTrue(Array.isArray(errors) && errors.length > 0)
      assert.deepStrictEqual(Array.isArray(errors) ? errors[0].path : undefined, ["query", "limit"])
      assert.strictEqual((yield* send("GET", "/api/v1/test/items?limit=500", { key })).status, 400)
      assert.strictEqual((yield* send("GET", "/api/v1/test/items?limit=5", { key })).body.limit, 5)
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("a malformed JSON body is 400, never 500", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey({ scopes: ["write"] })
      const reply = yield* send("POST", "/api/v1/test/echo", { key, body: "{not json" })
      assert.strictEqual(reply.status, 400)
      assert.strictEqual(reply.body.code, "invalid_request")
      const wrongShape = yield* send("POST", "/api/v1/test/echo", { key, body: JSON.stringify({ message: 1 }) })
      assert.strictEqual(wrongShape.status, 400)
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("x-request-id is on success and failure and equals the body's requestId", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const ok = yield* send("GET", "/api/v1/workspaces/current", { key })
      assert.match(ok.headers["x-request-id"] ?? "", /^req_[0-9a-f]{32}$/)
      // It begins with the time it was made, which the request log's lookup by id reads.
      assert.isBelow(Math.abs(Date.now() - (serverRequestIdTime(ok.headers["x-request-id"] ?? "") ?? 0)), 60_000)
      const failed = yield* send("GET", "/api/v1/workspaces/current")
      assert.match(failed.headers["x-request-id"] ?? "", /^req_/)
      assert.strictEqual(failed.body.requestId, failed.headers["x-request-id"])
      const notFound = yield* send("GET", "/nope")
      assert.strictEqual(notFound.body.requestId, notFound.headers["x-request-id"])
      // A plain incoming id is kept; anything else is replaced.
      const echoed = yield* send("GET", "/api/v1/workspaces/current", { headers: { "x-request-id": "client-42.a_b" } })
      assert.strictEqual(echoed.headers["x-request-id"], "client-42.a_b")
      assert.strictEqual(echoed.body.requestId, "client-42.a_b")
      const replaced = yield* send("GET", "/api/v1/workspaces/current", { headers: { "x-request-id": "bad id <script>" } })
      assert.match(replaced.headers["x-request-id"] ?? "", /^req_/)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a defect is a bare 500 internal_error with no internals", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const reply = yield* send("GET", "/api/v1/test/defect", { key })
      assert.strictEqual(reply.status, 500)
      assert.strictEqual(reply.body.code, "internal_error")
      assert.strictEqual(reply.headers["content-type"], "application/problem+json")
      assert.strictEqual(reply.body.requestId, reply.headers["x-request-id"])
      assert.notInclude(reply.text, "secret internals")
      assert.notInclude(reply.text, "/srv/atrium")
      assert.notInclude(reply.text.toLowerCase(), "stack")
      assert.isUndefined(reply.body.detail)
    }).pipe(Effect.provide(TestAppUnderTest())))
})
