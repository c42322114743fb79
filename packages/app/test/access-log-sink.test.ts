import { AccessLogSink } from "@atrium/adapters-http"
import { describe, expect, it, vi } from "@effect/vitest"
import { ApiKeyId, RequestLogs, SessionId, SessionPrincipal, UserId, WorkspaceId } from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { ConfigProvider, Context, Effect, Exit, Layer, Scope } from "effect"
import { AccessLogStdout, accessLogLayer } from "../src/access-log-sink.ts"
import { appConfig } from "../src/app-config.ts"

describe("the stdout access log", () => {
  it("writes one JSON line per entry, shaped like the app's log lines, flushed on shutdown", async () => {
    const written: Array<string> = []
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    try {
      const scope = Effect.runSync(Scope.make())
      const context = await Effect.runPromise(Layer.buildWithScope(AccessLogStdout, scope))
      const sink = await Effect.runPromise(Effect.provide(Effect.service(AccessLogSink), context))
      expect(sink).toBeDefined()
      const entries = [
        { method: "GET", route: "/api/v1/workspaces/current", status: 200, durationMs: 0.412, requestId: "req_1", principalId: "key_1", workspaceId: null, keyId: null },
        { method: "GET", route: null, status: 404, durationMs: 1, requestId: "a\"b\\c", principalId: null, workspaceId: null, keyId: null }
      ]
      for (const entry of entries) sink?.(entry)
      await Effect.runPromise(Scope.close(scope, Exit.void))
      const lines = written.join("").split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line))
      expect(lines).toHaveLength(2)
      lines.forEach((line, i) => {
        expect(line).toEqual({ message: "request", level: "INFO", timestamp: expect.any(String), annotations: entries[i] })
        expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp)
        expect(Math.abs(Date.now() - Date.parse(line.timestamp))).toBeLessThan(10_000)
      })
    } finally {
      write.mockRestore()
    }
  })

  it("stamps each line with the time its entry came, not the time its batch is written", async () => {
    const written: Array<string> = []
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    const clock = vi.spyOn(Date, "now")
    try {
      const scope = Effect.runSync(Scope.make())
      const context = await Effect.runPromise(Layer.buildWithScope(AccessLogStdout, scope))
      const sink = Context.get(context, AccessLogSink)
      const entry = { method: "GET", route: null, status: 200, durationMs: 1, requestId: "req_t", principalId: null, workspaceId: null, keyId: null }
      const came = [Date.parse("2026-01-02T03:04:05.006Z"), Date.parse("2026-01-02T03:04:05.007Z")]
      for (const at of came) {
        clock.mockReturnValue(at)
        sink?.(entry)
      }
      // The batch is written a minute later.
      clock.mockReturnValue(Date.parse("2026-01-02T03:05:05.000Z"))
      await Effect.runPromise(Scope.close(scope, Exit.void))
      const stamps = written.join("").split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line).timestamp)
      expect(stamps).toEqual(["2026-01-02T03:04:05.006Z", "2026-01-02T03:04:05.007Z"])
    } finally {
      clock.mockRestore()
      write.mockRestore()
    }
  })
})

describe("ATRIUM_REQUEST_LOG", () => {
  const keyed = { method: "GET", route: "/api/v1/workspaces/current", status: 200, durationMs: 0.4, requestId: "req_switch", principalId: "key_switch", workspaceId: WorkspaceId.make("ws_switch"), keyId: ApiKeyId.make("key_switch") }
  const admin = new SessionPrincipal({ sessionId: SessionId.make("ses_s"), userId: UserId.make("usr_s"), workspaceId: keyed.workspaceId, role: "owner" })
  // One keyed v1 request through the server's access log, then the scope closed (the buffer flushes); what the log kept.
  const keptWith = (requestLog: boolean) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(accessLogLayer(requestLog), scope)
      const sink = Context.get(context, AccessLogSink)
      sink?.(keyed)
      yield* Scope.close(scope, Exit.void)
      const page = yield* (yield* RequestLogs).list(admin, {}, { limit: 10, cursor: undefined })
      return page.data.map((line) => line.requestId)
    }).pipe(Effect.provide(Domain.layerMemory))
  const read = (value: string | undefined) =>
    Effect.runSync(appConfig.parse(ConfigProvider.fromEnv({ env: value === undefined ? {} : { ATRIUM_REQUEST_LOG: value } }))).requestLog

  it("is on by default and `off` turns it off", () => {
    expect(read(undefined)).toBe(true)
    expect(read("off")).toBe(false)
    expect(read("false")).toBe(false)
  })

  it.effect("off: the per-key request log keeps nothing; on: the same request is kept", () =>
    Effect.gen(function*() {
      const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true)
      try {
        expect(yield* keptWith(false)).toEqual([])
        expect(yield* keptWith(true)).toEqual(["req_switch"])
      } finally {
        write.mockRestore()
      }
    }))
})
