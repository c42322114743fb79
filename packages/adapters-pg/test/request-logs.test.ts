import { ApiKeyId, encodeCursor, type Page, type RequestLogEntry, type RequestLogFilter, type RequestLogRecord, RequestLogRepository, WorkspaceId } from "@atrium/domain"
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
const pagedWorkspace = WorkspaceId.make("ws_requestLogPages")
const otherWorkspace = WorkspaceId.make("ws_requestLogOther")
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

    // Twelve lines of one millisecond get ids 1…12 in a fresh schema: pages once ordered by the ids' text ("10" < "9") skipped lines.
    it.effect("pages lines of one millisecond newest first, each once, alone or filtered by key, status and request id", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const at = 1_790_000_100_000
        const keyA = ApiKeyId.make("key_requestLogPagesA")
        const keyB = ApiKeyId.make("key_requestLogPagesB")
        const lines = Array.from({ length: 12 }, (_, i): RequestLogRecord => ({
          ...line(`r${i}`, i % 3 === 0 ? 500 : 200, 1, at),
          workspaceId: pagedWorkspace,
          keyId: i % 2 === 0 ? keyA : keyB
        }))
        const [first, ...rest] = lines
        if (first === undefined) return assert.fail("no lines")
        yield* repo.appendAll([first, ...rest])
        yield* repo.appendAll([{ ...first, workspaceId: otherWorkspace, requestId: "r0" }])
        const everyPage = (filter: RequestLogFilter, limit: number) =>
          Effect.gen(function*() {
            const seen: Array<string> = []
            let cursor: string | undefined = undefined
            for (let pages = 0; pages < 20; pages++) {
              const page: Page<RequestLogEntry> = yield* repo.list(pagedWorkspace, filter, { limit, cursor })
              seen.push(...page.data.map((entry) => entry.requestId))
              if (page.nextCursor === null) return seen
              cursor = page.nextCursor
            }
            return assert.fail("paging did not end")
          })
        const newestFirst = lines.map((record) => record.requestId).reverse()
        assert.deepStrictEqual(yield* everyPage({}, 5), newestFirst)
        assert.deepStrictEqual(yield* everyPage({ keyId: keyA }, 4), newestFirst.filter((_, i) => i % 2 === 1))
        assert.deepStrictEqual(yield* everyPage({ status: 500 }, 2), ["r9", "r6", "r3", "r0"])
        assert.deepStrictEqual(yield* everyPage({ keyId: keyB, status: 500 }, 1), ["r9", "r3"])
        assert.deepStrictEqual(yield* everyPage({ requestId: "r0" }, 5), ["r0"])
        // Another list's cursor (its id no line's number) reads as no cursor: the first page, not a failed bigint cast.
        const foreign = encodeCursor({ createdAt: DateTime.makeUnsafe(at), id: "fr_abc" })
        const fromForeign = yield* repo.list(pagedWorkspace, {}, { limit: 3, cursor: foreign })
        assert.deepStrictEqual(fromForeign.data.map((entry) => entry.requestId), ["r11", "r10", "r9"])
      }).pipe(Effect.provide(target.layer)), 120_000)
  })
}
