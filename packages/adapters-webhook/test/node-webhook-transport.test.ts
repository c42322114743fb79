import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { type Resolver, WebhookTransportNode } from "@atrium/adapters-webhook"
import { type TransportRequest, WebhookTransport } from "@atrium/domain"
import { closedPort, receiver } from "./receiver.ts"

const loopback = WebhookTransportNode.layerWith({ allowNetworks: ["127.0.0.0/8"] })

const post = (url: string, overrides: Partial<TransportRequest> = {}): TransportRequest => ({
  url,
  headers: {
    "webhook-id": "evt_1",
    "webhook-timestamp": "1700000000",
    "webhook-signature": "v1,c2lnbmF0dXJl",
    "content-type": "application/json"
  },
  body: JSON.stringify({ id: "evt_1", type: "webhook.test", data: { message: "hi" } }),
  timeout: Duration.seconds(5),
  connectTimeout: Duration.seconds(2),
  ...overrides
})

// Node returns a kept-alive socket to its pool on the tick after the answer ended, where `send` returned: one turn of
// the event loop (Effect yields to setImmediate, after every pending tick) and it is free for the next attempt.
const pooled = Effect.yieldNow

const send = (request: TransportRequest) =>
  Effect.gen(function*() {
    const transport = yield* WebhookTransport
    return yield* transport.send(request)
  })

describe("WebhookTransportNode", () => {
  it.live("posts the body and headers, records status, noted headers and at most 4 KiB of body", () =>
    Effect.gen(function*() {
      const big = "x".repeat(10_000)
      const server = yield* receiver((_request, response) => {
        response.writeHead(200, {
          "content-type": "text/plain",
          "x-request-id": "req_42",
          server: "test-receiver",
          "x-secret-internal": "not kept"
        })
        response.end(big)
      })
      const request = post(server.url("/hook?attempt=1"))
      // Framing headers belong to the transport; a caller's values are ignored.
      const result = yield* send({ ...request, headers: { ...request.headers, Host: "evil.example", "Content-Length": "1" } })
      assert.isTrue(result.ok)
      assert.isNull(result.errorKind)
      assert.strictEqual(result.statusCode, 200)
      assert.deepStrictEqual(result.responseHeaders, {
        "content-type": "text/plain",
        "x-request-id": "req_42",
        server: "test-receiver"
      })
      assert.strictEqual(result.responseBody, "x".repeat(4096))
      assert.isNull(result.retryAfterSeconds)
      assert.strictEqual(result.remoteAddress, "127.0.0.1")
      assert.isAtLeast(result.durationMillis, 0)
      const [received] = server.requests
      assert.strictEqual(received?.method, "POST")
      assert.strictEqual(received?.url, "/hook?attempt=1")
      assert.strictEqual(received?.body, post("").body)
      assert.strictEqual(received?.headers["webhook-id"], "evt_1")
      assert.strictEqual(received?.headers["webhook-signature"], "v1,c2lnbmF0dXJl")
      assert.strictEqual(received?.headers["content-type"], "application/json")
      assert.strictEqual(received?.headers["host"], `127.0.0.1:${server.port}`)
      assert.strictEqual(received?.headers["content-length"], String(Buffer.byteLength(post("").body)))
    }).pipe(Effect.provide(loopback)))

  it.live("reports a 500 as non_2xx with the body", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(`{"error":"boom"}`)
      })
      const result = yield* send(post(server.url()))
      assert.isFalse(result.ok)
      assert.strictEqual(result.errorKind, "non_2xx")
      assert.strictEqual(result.statusCode, 500)
      assert.strictEqual(result.responseBody, `{"error":"boom"}`)
    }).pipe(Effect.provide(loopback)))

  it.live("keeps a body's NUL characters as U+FFFD: no database text column can hold NUL, and the attempt must be recorded", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => {
        response.writeHead(200, { "content-type": "text/plain" })
        response.end("ok\u0000done\u0000")
      })
      const result = yield* send(post(server.url()))
      assert.isTrue(result.ok)
      assert.strictEqual(result.responseBody, "ok\uFFFDdone\uFFFD")
    }).pipe(Effect.provide(loopback)))

  it.live("reads Retry-After of a 429 (seconds) and a 503 (HTTP-date)", () =>
    Effect.gen(function*() {
      const server = yield* receiver((request, response) => {
        if (request.url === "/slow-down") {
          response.writeHead(429, { "retry-after": "7" })
        } else {
          response.writeHead(503, { "retry-after": new Date(Date.now() + 120_000).toUTCString() })
        }
        response.end()
      })
      const limited = yield* send(post(server.url("/slow-down")))
      assert.strictEqual(limited.errorKind, "non_2xx")
      assert.strictEqual(limited.statusCode, 429)
      assert.strictEqual(limited.retryAfterSeconds, 7)
      assert.strictEqual(limited.responseHeaders["retry-after"], "7")
      const unavailable = yield* send(post(server.url("/down")))
      assert.strictEqual(unavailable.statusCode, 503)
      assert.isNotNull(unavailable.retryAfterSeconds)
      assert.isAtLeast(unavailable.retryAfterSeconds ?? 0, 118)
      assert.isAtMost(unavailable.retryAfterSeconds ?? 0, 121)
    }).pipe(Effect.provide(loopback)))

  it.live("does not follow a redirect", () =>
    Effect.gen(function*() {
      const server = yield* receiver((request, response) => {
        response.writeHead(request.url === "/hook" ? 302 : 200, { location: "/elsewhere" })
        response.end()
      })
      const result = yield* send(post(server.url("/hook")))
      assert.isFalse(result.ok)
      assert.strictEqual(result.errorKind, "non_2xx")
      assert.strictEqual(result.statusCode, 302)
      assert.strictEqual(result.responseHeaders["location"], "/elsewhere")
      assert.deepStrictEqual(server.requests.map((request) => request.url), ["/hook"])
    }).pipe(Effect.provide(loopback)))

  it.live("times out a receiver that never answers, promptly", () =>
    Effect.gen(function*() {
      const server = yield* receiver(() => {})
      const started = Date.now()
      const result = yield* send(post(server.url(), { timeout: Duration.millis(300) }))
      const elapsed = Date.now() - started
      assert.isFalse(result.ok)
      assert.strictEqual(result.errorKind, "timeout")
      assert.isNull(result.statusCode)
      assert.strictEqual(result.remoteAddress, "127.0.0.1")
      assert.isAtLeast(elapsed, 250)
      assert.isBelow(elapsed, 1000)
      assert.isAtLeast(result.durationMillis, 250)
      assert.isBelow(result.durationMillis, 1000)
      yield* Effect.promise(() => server.firstSocketClosed)
    }).pipe(Effect.provide(loopback)))

  it.live("keeps a 2xx whose body stalls past the timeout", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => {
        response.writeHead(202, { "content-type": "text/plain" })
        response.write("accepted")
      })
      const result = yield* send(post(server.url(), { timeout: Duration.millis(300) }))
      assert.isTrue(result.ok)
      assert.strictEqual(result.statusCode, 202)
      assert.strictEqual(result.responseBody, "accepted")
    }).pipe(Effect.provide(loopback)))

  it.live("reports a closed port as refused", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const result = yield* send(post(`http://127.0.0.1:${port}/hook`))
      assert.isFalse(result.ok)
      assert.strictEqual(result.errorKind, "refused")
      assert.isNull(result.statusCode)
    }).pipe(Effect.provide(loopback)))

  it.live("blocks the loopback receiver without the allow-list, and sends it nothing", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => response.end("ok"))
      const transport = yield* WebhookTransportNode.make({ allowNetworks: [] })
      for (const url of [server.url(), `http://localhost:${server.port}/hook`, `https://127.0.0.1:${server.port}/hook`]) {
        const result = yield* transport.send(post(url))
        assert.isFalse(result.ok, url)
        assert.strictEqual(result.errorKind, "blocked", url)
        assert.isNull(result.remoteAddress, url)
      }
      assert.strictEqual(server.requests.length, 0)
    }))

  it.live("connects to the address it checked, keeping the host name for the Host header", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => response.end("ok"))
      // `hooks.test` exists only in this resolver: a second, system lookup would fail with dns.
      const resolver: Resolver = () => Effect.succeed([{ address: "127.0.0.1", family: 4 }])
      const transport = yield* WebhookTransportNode.make({ allowNetworks: ["127.0.0.0/8"], resolver })
      const result = yield* transport.send(post(`http://hooks.test:${server.port}/hook`))
      assert.isTrue(result.ok)
      assert.strictEqual(result.remoteAddress, "127.0.0.1")
      assert.strictEqual(server.requests[0]?.headers["host"], `hooks.test:${server.port}`)
    }))

  it.live("reports a failed TLS handshake as tls", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => response.end("plain http"))
      const result = yield* send(post(`https://127.0.0.1:${server.port}/hook`))
      assert.isFalse(result.ok)
      assert.strictEqual(result.errorKind, "tls")
    }).pipe(Effect.provide(loopback)))

  it.live("reports an unresolvable host as dns", () =>
    Effect.gen(function*() {
      const result = yield* send(post("https://does-not-exist.invalid/hook"))
      assert.strictEqual(result.errorKind, "dns")
    }).pipe(Effect.provide(loopback)))

  it.live("aborts the request when interrupted", () =>
    Effect.gen(function*() {
      const server = yield* receiver(() => {}, { headOnly: true })
      const fiber = yield* Effect.forkChild(send(post(server.url(), { timeout: Duration.seconds(30) })))
      yield* Effect.promise(() => server.requestArrived)
      const started = Date.now()
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.firstSocketClosed).pipe(Effect.timeout("2 seconds"))
      assert.isBelow(Date.now() - started, 1000)
    }).pipe(Effect.provide(loopback)))

  it.live("attempts to the same checked address within the window share one connection; a new window or address connects afresh", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => response.writeHead(204).end())
      let addresses: ReadonlyArray<{ readonly address: string; readonly family: 4 }> = [{ address: "127.0.0.1", family: 4 }]
      const resolver: Resolver = () => Effect.sync(() => addresses)
      const transport = yield* WebhookTransportNode.make({ allowNetworks: ["127.0.0.0/8"], resolver, reuseWindowMillis: 300 })
      const url = `http://hooks.test:${server.port}/hook`
      for (let i = 0; i < 3; i++) {
        assert.isTrue((yield* transport.send(post(url))).ok)
        yield* pooled
      }
      const ports = () => server.requests.map((r) => r.remotePort)
      assert.strictEqual(new Set(ports()).size, 1, "one connection within the window")
      // The host now resolves to another (checked) address where nothing listens: the old, live socket is not used.
      addresses = [{ address: "127.0.0.2", family: 4 }]
      const moved = yield* transport.send(post(url))
      assert.strictEqual(moved.errorKind, "refused")
      assert.strictEqual(server.requests.length, 3)
      addresses = [{ address: "127.0.0.1", family: 4 }]
      // The pooled connection closes once idle for the window, which opened before its first attempt: the window is over.
      yield* Effect.promise(() => server.firstSocketClosed)
      assert.isTrue((yield* transport.send(post(url))).ok)
      assert.strictEqual(new Set(ports()).size, 2, "a new window connects afresh")
    }))

  it.live("an answer not read to the end (over 4 KiB, or an error status cut short) never returns its socket to the pool", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_request, response) => response.writeHead(200).end("x".repeat(64 * 1024)))
      const transport = yield* WebhookTransportNode.make({ allowNetworks: ["127.0.0.0/8"], reuseWindowMillis: 5_000 })
      for (let i = 0; i < 2; i++) {
        assert.isTrue((yield* transport.send(post(server.url()))).ok)
        yield* pooled
      }
      assert.strictEqual(new Set(server.requests.map((r) => r.remotePort)).size, 2)
    }))
})
