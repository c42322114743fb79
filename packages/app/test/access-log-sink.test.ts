import { AccessLogSink } from "@atrium/adapters-http"
import { describe, expect, it, vi } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { AccessLogStdout } from "../src/access-log-sink.ts"

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
})
