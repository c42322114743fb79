import { ApiKeyId, encodeCursor, type Page, type RequestLogEntry, type RequestLogFilter, type RequestLogRecord, RequestLogRepository, serverRequestId, WorkspaceId } from "@atrium/domain"
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
// Every line these tests write is after this.
const always = DateTime.makeUnsafe(0)
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

// Every page of a list, each line's request id in page order.
const everyPage = (workspace: WorkspaceId, filter: RequestLogFilter, limit: number, since = always) =>
  Effect.gen(function*() {
    const repo = yield* RequestLogRepository
    const seen: Array<string> = []
    let cursor: string | undefined = undefined
    for (let pages = 0; pages < 200; pages++) {
      const page: Page<RequestLogEntry> = yield* repo.list(workspace, filter, { limit, cursor }, since)
      seen.push(...page.data.map((entry) => entry.requestId))
      if (page.nextCursor === null) return seen
      cursor = page.nextCursor
    }
    return assert.fail("paging did not end")
  })

const nonEmpty = <A>(items: ReadonlyArray<A>): readonly [A, ...Array<A>] => {
  const [first, ...rest] = items
  return first === undefined ? assert.fail("no items") : [first, ...rest]
}

for (const target of targets) {
  describe(`request-log batches on ${target.label}`, () => {
    // A whole-millisecond duration among fractional ones once made the driver refuse the whole batch (int4 and float8
    // in one inferred array), and the buffer retried it forever while its backlog grew.
    it.effect("writes a batch whose durations mix whole and fractional milliseconds, times past 2^31 ms", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const at = 1_790_000_000_123
        yield* repo.appendAll([line("a", 200, 1.25, at), line("b", 404, 2, at + 1), line("c", 500, 0, at + 2), line("d", 200, 3.5, at + 3)])
        const page = yield* repo.list(workspaceId, {}, { limit: 10, cursor: undefined }, always)
        assert.deepStrictEqual(
          page.data.map((entry) => [entry.requestId, entry.status, entry.durationMs, DateTime.toEpochMillis(entry.createdAt)]),
          [["d", 200, 3.5, at + 3], ["c", 500, 0, at + 2], ["b", 404, 2, at + 1], ["a", 200, 1.25, at]]
        )
      }).pipe(Effect.provide(target.layer)), 120_000)

    it.effect("keeps each line's method and route among the several endpoints of one batch", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const at = 1_790_000_050_000
        const calls = [["GET", "/api/v1/a"], ["POST", "/api/v1/a"], ["GET", "/api/v1/b"], ["GET", "/api/v1/a"], ["DELETE", "/api/v1/b/:id"], ["POST", "/api/v1/a"]]
        yield* repo.appendAll(nonEmpty(calls.map(([method = "", route = ""], i) => ({ ...line(`e${i}`, 200, 1, at + i), method, route }))))
        const page = yield* repo.list(workspaceId, {}, { limit: 10, cursor: undefined }, always)
        assert.deepStrictEqual(page.data.map((entry) => [entry.method, entry.route]), [...calls].reverse())
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
        const newestFirst = lines.map((record) => record.requestId).reverse()
        assert.deepStrictEqual(yield* everyPage(pagedWorkspace, {}, 5), newestFirst)
        assert.deepStrictEqual(yield* everyPage(pagedWorkspace, { keyId: keyA }, 4), newestFirst.filter((_, i) => i % 2 === 1))
        assert.deepStrictEqual(yield* everyPage(pagedWorkspace, { status: 500 }, 2), ["r9", "r6", "r3", "r0"])
        assert.deepStrictEqual(yield* everyPage(pagedWorkspace, { keyId: keyB, status: 500 }, 1), ["r9", "r3"])
        assert.deepStrictEqual(yield* everyPage(pagedWorkspace, { requestId: "r0" }, 5), ["r0"])
        // Another list's cursor (its id no line's number) reads as no cursor: the first page, not a failed bigint cast.
        const foreign = encodeCursor({ createdAt: DateTime.makeUnsafe(at), id: "fr_abc" })
        const fromForeign = yield* repo.list(pagedWorkspace, {}, { limit: 3, cursor: foreign }, always)
        assert.deepStrictEqual(fromForeign.data.map((entry) => entry.requestId), ["r11", "r10", "r9"])
      }).pipe(Effect.provide(target.layer)), 120_000)

    // Flushes of three keys whose times overlap, and a late flush of old lines (kept through an outage): a page must
    // read every batch that may hold a newer line than its last, across as many rounds of batches as that takes.
    it.effect("pages across batches that overlap in time, newest first, each line once, whatever the page size and filter", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const at = 1_790_000_200_000
        const keys = [ApiKeyId.make("key_overlapA"), ApiKeyId.make("key_overlapB"), ApiKeyId.make("key_overlapC")]
        const written: Array<RequestLogRecord> = []
        const flush = (records: ReadonlyArray<RequestLogRecord>) => {
          written.push(...records)
          return repo.appendAll(nonEmpty(records))
        }
        // 40 flushes a second apart, each with a line of each key at the same few milliseconds.
        for (let second = 0; second < 40; second++) {
          yield* flush(keys.map((key, k) => ({ ...line(`s${second}k${k}`, k === 2 && second % 7 === 0 ? 500 : 200, 1, at + second * 1000 + (k % 2)), keyId: key })))
        }
        // The backlog: lines of seconds 5 to 25 written after all of them, one flush.
        yield* flush(Array.from({ length: 21 }, (_, i) => ({ ...line(`late${i}`, 200, 1, at + (5 + i) * 1000 + 500), keyId: keys[0] ?? assert.fail("no key") })))
        // One batch spanning all 40 seconds.
        yield* flush([line("wide-first", 200, 1, at), line("wide-last", 200, 1, at + 39_999)])
        const expected = (keep: (record: RequestLogRecord) => boolean) =>
          written
            .map((record, i) => ({ record, i }))
            .filter(({ record }) => keep(record))
            .sort((a, b) => b.record.at - a.record.at || b.i - a.i)
            .map(({ record }) => record.requestId)
        for (const limit of [1, 7, 50, 100]) {
          assert.deepStrictEqual(yield* everyPage(workspaceId, {}, limit), expected(() => true), `limit ${limit}`)
        }
        assert.deepStrictEqual(yield* everyPage(workspaceId, { keyId: keys[0] }, 9), expected((record) => record.keyId === keys[0]))
        assert.deepStrictEqual(yield* everyPage(workspaceId, { status: 500 }, 2), expected((record) => record.status === 500))
        // Lines before `since` are left out, even those of a batch that also holds later ones.
        assert.deepStrictEqual(
          yield* everyPage(workspaceId, {}, 10, DateTime.makeUnsafe(at + 30_000)),
          expected((record) => record.at >= at + 30_000)
        )
      }).pipe(Effect.provide(target.layer)), 120_000)

    it.effect("finds a line by request id: the server's own, a client's, one shaped like the server's but made elsewhen; never another workspace's", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const at = 1_790_000_300_000
        const ours = serverRequestId(at - 20, "01234567-0000-4000-8000-89abcdef0123")
        const slow = serverRequestId(at - 10 * 60_000, "11234567-0000-4000-8000-89abcdef0123")
        const forged = serverRequestId(at + 3_600_000, "21234567-0000-4000-8000-89abcdef0123")
        // Many batches around them, so the lookup has batches to skip.
        for (let second = -70; second <= 70; second += 2) {
          yield* repo.appendAll([line(serverRequestId(at + second * 1000 - 5, `${String(second + 100).padStart(3, "0")}45678-0000-4000-8000-9abcdef01234`), 200, 1, at + second * 1000)])
        }
        yield* repo.appendAll([line("client-chosen", 404, 1, at - 1), line(ours, 200, 1, at), line(slow, 201, 1, at + 1), line(forged, 202, 1, at + 2)])
        yield* repo.appendAll([{ ...line(ours, 500, 1, at), workspaceId: otherWorkspace }])
        // The same client id again, a minute later: both are listed.
        yield* repo.appendAll([line("client-chosen", 409, 1, at + 60_000)])
        const statusesOf = (requestId: string) =>
          repo.list(workspaceId, { requestId }, { limit: 10, cursor: undefined }, always).pipe(Effect.map((page) => page.data.map((entry) => entry.status)))
        assert.deepStrictEqual(yield* statusesOf(ours), [200])
        assert.deepStrictEqual(yield* statusesOf(slow), [201])
        assert.deepStrictEqual(yield* statusesOf(forged), [202])
        assert.deepStrictEqual(yield* statusesOf("client-chosen"), [409, 404])
        assert.deepStrictEqual(yield* statusesOf(serverRequestId(at, "ffffffff-0000-4000-8000-ffffffffffff")), [])
        assert.deepStrictEqual(yield* statusesOf("nobody"), [])
      }).pipe(Effect.provide(target.layer)), 120_000)

    it.effect("pruning keeps a batch with lines on both sides of the cutoff, and lists only its newer lines", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const cutoff = 1_790_000_400_000
        yield* repo.appendAll([line("gone-1", 200, 1, cutoff - 7_200_000), line("gone-2", 200, 1, cutoff - 3_600_000)])
        yield* repo.appendAll([line("straddling-old", 200, 1, cutoff - 1), line("straddling-new", 200, 1, cutoff + 1)])
        const gone = yield* repo.pruneBefore(DateTime.makeUnsafe(cutoff))
        // Postgres deletes whole batches (the straddling one stays until its last line is old); memory, single lines.
        assert.strictEqual(gone, target.label === "memory" ? 3 : 2)
        assert.deepStrictEqual(yield* everyPage(workspaceId, {}, 10, DateTime.makeUnsafe(cutoff)), ["straddling-new"])
        assert.strictEqual(yield* repo.pruneBefore(DateTime.makeUnsafe(cutoff + 2)), target.label === "memory" ? 1 : 2)
        assert.deepStrictEqual(yield* everyPage(workspaceId, {}, 10), [])
      }).pipe(Effect.provide(target.layer)), 120_000)

    it.effect("writes a flush larger than one statement carries, all of it or none", () =>
      Effect.gen(function*() {
        const repo = yield* RequestLogRepository
        const at = 1_790_000_500_000
        const records = Array.from({ length: 9_001 }, (_, i) => ({ ...line(`big${i}`, 200, 1, at + Math.floor(i / 3)), keyId: ApiKeyId.make(`key_big${i % 5}`) }))
        yield* repo.appendAll(nonEmpty(records))
        assert.deepStrictEqual(yield* everyPage(workspaceId, {}, 100), records.map((record) => record.requestId).reverse())
      }).pipe(Effect.provide(target.layer)), 120_000)
  })
}
