import type { AccessLogEntry } from "@atrium/adapters-http"
import { ApiKeyId, RequestLogs, SessionPrincipal, SessionId, UserId, WorkspaceId } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Ref, Scope } from "effect"
import { RequestLogBuffer } from "../src/request-log-buffer.ts"

const workspaceId = WorkspaceId.make("ws_buffer")
const admin = new SessionPrincipal({ sessionId: SessionId.make("ses_b"), userId: UserId.make("usr_b"), workspaceId, role: "owner" })
const entry = (overrides: Partial<AccessLogEntry>): AccessLogEntry => ({
  method: "GET",
  route: "/api/v1/workspaces/current",
  status: 200,
  durationMs: 0.5,
  requestId: "req_x",
  principalId: "key_buffer",
  workspaceId,
  keyId: ApiKeyId.make("key_buffer"),
  ...overrides
})
const stored = Effect.gen(function*() {
  const page = yield* (yield* RequestLogs).list(admin, {}, { limit: 100, cursor: undefined })
  return page.data.map((line) => line.requestId)
})

describe("the request-log buffer", () => {
  it.effect("keeps keyed /api/v1 requests only, writes them in batches, keeps them through an outage and writes the rest on shutdown", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(RequestLogBuffer.layerWith({ flushEvery: "1 hour", maxBatch: 2 }), scope)
      const { observe, flush } = Context.get(context, RequestLogBuffer)
      observe(entry({ requestId: "a" }))
      observe(entry({ requestId: "session", keyId: null, principalId: "ses_1" }))
      observe(entry({ requestId: "mobile", route: "/api/mobile/organization" }))
      observe(entry({ requestId: "unknown", route: null }))
      observe(entry({ requestId: "refused", workspaceId: null, keyId: null, principalId: null }))
      observe(entry({ requestId: "b" }))
      observe(entry({ requestId: "c" }))
      // Nothing is written on the request path.
      assert.deepStrictEqual(yield* stored, [])
      const store = yield* MemoryStore
      yield* Ref.set(store.down, true)
      yield* flush
      yield* Ref.set(store.down, false)
      assert.deepStrictEqual(yield* stored, [])
      yield* flush
      assert.deepStrictEqual([...(yield* stored)].sort(), ["a", "b", "c"])
      observe(entry({ requestId: "d" }))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual([...(yield* stored)].sort(), ["a", "b", "c", "d"])
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("the request-log buffer behind a database slower than the traffic", () => {
  it.effect("keeps the newest `maxPending` lines, dropping the oldest in bulk", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(RequestLogBuffer.layerWith({ flushEvery: "1 hour", maxBatch: 4, maxPending: 10 }), scope)
      const { observe } = Context.get(context, RequestLogBuffer)
      for (let i = 0; i < 25; i++) observe(entry({ requestId: String(i).padStart(2, "0") }))
      yield* Scope.close(scope, Exit.void)
      const kept = [...(yield* stored)].sort()
      assert.isAtMost(kept.length, 10)
      // The newest lines, with no gap: the oldest went first.
      assert.deepStrictEqual(kept, Array.from({ length: kept.length }, (_, i) => String(25 - kept.length + i).padStart(2, "0")))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a full buffer does not make each request move the backlog: a million lines past 200,000 pending take seconds at most, not minutes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(RequestLogBuffer.layerWith({ flushEvery: "1 hour", maxBatch: 5000, maxPending: 200_000 }), scope)
      const { observe } = Context.get(context, RequestLogBuffer)
      const line = entry({})
      const started = performance.now()
      for (let i = 0; i < 1_000_000; i++) observe(line)
      // Moving the backlog on every request (one shift of 200,000 lines each) took 273 s here; dropping in bulk, a fraction of a second.
      assert.isBelow(performance.now() - started, 10_000)
      yield* Scope.close(scope, Exit.void)
    }).pipe(Effect.provide(Domain.layerMemory)), 60_000)
})

describe("the request-log buffer behind a store that refuses a batch as a bug", () => {
  it.effect("drops that batch and goes on writing the next ones: a refused batch is never retried, so the backlog does not grow", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      let attempts = 0
      const refusing = Layer.succeed(RequestLogs, RequestLogs.of({
        list: () => Effect.die("not used"),
        prune: Effect.succeed(0),
        record: (records) => Effect.suspend(() => {
          attempts++
          if (records.some((record) => record.requestId === "bad")) return Effect.die("the driver refused the batch")
          written.push(...records.map((record) => record.requestId))
          return Effect.void
        })
      }))
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(RequestLogBuffer.layerWith({ flushEvery: "1 hour", maxBatch: 2 }).pipe(Layer.provide(refusing)), scope)
      const { observe, flush } = Context.get(context, RequestLogBuffer)
      for (const requestId of ["a", "bad", "c", "d"]) observe(entry({ requestId }))
      yield* flush
      assert.deepStrictEqual(written, ["c", "d"])
      assert.strictEqual(attempts, 2)
      observe(entry({ requestId: "e" }))
      yield* flush
      // The refused batch is not tried again.
      assert.deepStrictEqual(written, ["c", "d", "e"])
      assert.strictEqual(attempts, 3)
      yield* Scope.close(scope, Exit.void)
    }))
})
