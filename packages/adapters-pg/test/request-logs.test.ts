import { ApiKeyId, type RequestLogRecord, RequestLogRepository, WorkspaceId } from "@atrium/domain"
import { PortsMemory } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, type Layer, Redacted } from "effect"
import type { Ports } from "../src/index.ts"
import { layerTestPorts, PostgresTestSchema } from "../src/testing.ts"

const databaseUrl = process.env.DATABASE_URL

// The in-memory twin, and PostgreSQL when DATABASE_URL names a server (the embedded one is covered by the app's tests).
const targets: ReadonlyArray<{ readonly label: string; readonly layer: Layer.Layer<Ports, unknown> }> = [
  { label: "memory", layer: PortsMemory },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: layerTestPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 2 })) }])
]

const workspaceId = WorkspaceId.make("ws_requestLogBatch")
const line = (requestId: string, status: number, durationMs: number, at: number): RequestLogRecord => ({
  workspaceId,
  keyId: ApiKeyId.make("key_requestLogBatch"),
  method: "GET",
  route: "/api/v1/workspaces/current",
  status,
  durationMs,
  requestId,
  at
})

for (const target of targets) {
  describe(`request-log batches on ${target.label}`, () => {
    // A whole-millisecond duration among fractional ones once made the driver refuse the whole batch (int4 and float8
    // in one inferred array), and the buffer retried it forever while its backlog grew.
    it.effect("writes a batch whose durations mix whole and fractional milliseconds, times past 2^31 ms", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const at = 1_790_000_000_123
        yield* repo.appendAll([line("a", 200, 1.25, at), line("b", 404, 2, at + 1), line("c", 500, 0, at + 2), line("d", 200, 3.5, at + 3)])
        const page = yield* repo.list(workspaceId, {}, { limit: 10, cursor: undefined })
        assert.deepStrictEqual(
          page.data.map((entry) => [entry.requestId, entry.status, entry.durationMs, DateTime.toEpochMillis(entry.createdAt)]),
          [["d", 200, 3.5, at + 3], ["c", 500, 0, at + 2], ["b", 404, 2, at + 1], ["a", 200, 1.25, at]]
        )
      }).pipe(Effect.provide(target.layer)), 120_000)
  })
}
