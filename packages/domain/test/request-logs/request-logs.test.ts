import { assert, describe, it } from "@effect/vitest"
import { ApiKeyId, type RequestLogRecord, RequestLogs, serverRequestId, serverRequestIdTime, SessionPrincipal, SessionId, UserId, WorkspaceId } from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

const ours = WorkspaceId.make("ws_ours")
const theirs = WorkspaceId.make("ws_theirs")
const admin = (workspaceId: WorkspaceId, role: "admin" | "member" = "admin") =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_a"), userId: UserId.make("usr_a"), workspaceId, role })

const record = (workspaceId: WorkspaceId, key: string, status: number, requestId: string, at: number): RequestLogRecord => ({
  workspaceId,
  keyId: ApiKeyId.make(key),
  method: "GET",
  route: "/api/v1/workspaces/current",
  status,
  durationMs: 1.25,
  requestId,
  at
})
const page = { limit: 20, cursor: undefined }

describe("request logs", () => {
  it.effect("read newest first, filtered by key, status and request id, within the principal's workspace only", () =>
    Effect.gen(function*() {
      const logs = yield* RequestLogs
      const now = 1_800_000_000_000
      yield* logs.record([
        record(ours, "key_one", 200, "r1", now - 3000),
        record(ours, "key_two", 404, "r2", now - 2000),
        record(theirs, "key_three", 200, "r3", now - 1000)
      ])
      const all = yield* logs.list(admin(ours), {}, page)
      assert.deepStrictEqual(all.data.map((line) => line.requestId), ["r2", "r1"])
      assert.deepStrictEqual((yield* logs.list(admin(ours), { keyId: ApiKeyId.make("key_two") }, page)).data.map((line) => line.requestId), ["r2"])
      assert.deepStrictEqual((yield* logs.list(admin(ours), { status: 200 }, page)).data.map((line) => line.requestId), ["r1"])
      assert.deepStrictEqual((yield* logs.list(admin(ours), { requestId: "r3" }, page)).data, [])
      assert.deepStrictEqual((yield* logs.list(admin(theirs), {}, page)).data.map((line) => line.requestId), ["r3"])
      const first = yield* logs.list(admin(ours), {}, { limit: 1, cursor: undefined })
      const second = yield* logs.list(admin(ours), {}, { limit: 1, cursor: first.nextCursor ?? undefined })
      assert.deepStrictEqual([...first.data, ...second.data].map((line) => line.requestId), ["r2", "r1"])
      assert.isNull(second.nextCursor)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("members may not read them", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip((yield* RequestLogs).list(admin(ours, "member"), {}, page))
      assert.strictEqual(refused._tag, "Forbidden")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a pruning step removes what is older than seven days and keeps the rest", () =>
    Effect.gen(function*() {
      const logs = yield* RequestLogs
      const start = 1_800_000_000_000
      yield* TestClock.setTime(start)
      yield* logs.record([record(ours, "key_one", 200, "old", start), record(ours, "key_one", 200, "new", start + 2 * 86_400_000)])
      yield* TestClock.adjust("7 days")
      assert.strictEqual(yield* logs.prune, 0)
      yield* TestClock.adjust("1 day")
      assert.strictEqual(yield* logs.prune, 1)
      assert.deepStrictEqual((yield* logs.list(admin(ours), {}, page)).data.map((line) => line.requestId), ["new"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a line older than seven days is not listed, pruned or not", () =>
    Effect.gen(function*() {
      const logs = yield* RequestLogs
      const start = 1_800_000_000_000
      yield* TestClock.setTime(start)
      yield* logs.record([record(ours, "key_one", 200, "older", start - 7 * 86_400_000 - 1), record(ours, "key_one", 200, "newer", start - 7 * 86_400_000 + 1)])
      assert.deepStrictEqual((yield* logs.list(admin(ours), {}, page)).data.map((line) => line.requestId), ["newer"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it("the server's request ids hold their time; no other id does", () => {
    const at = 1_800_000_000_123
    const id = serverRequestId(at, "01234567-89ab-4def-8123-456789abcdef")
    assert.strictEqual(id, `req_${at.toString(16).padStart(12, "0")}01234567456789abcdef`)
    assert.strictEqual(serverRequestId(at, "ffffffff-89ab-4def-8123-ffffffffffff"), `req_${at.toString(16).padStart(12, "0")}ffffffffffffffffffff`)
    assert.strictEqual(serverRequestIdTime(id), at)
    assert.isUndefined(serverRequestIdTime("client-chosen"))
    assert.isUndefined(serverRequestIdTime(`${id}0`))
    assert.isUndefined(serverRequestIdTime(id.toUpperCase()))
    assert.isUndefined(serverRequestIdTime(`${id.slice(0, 35)}g`))
    assert.isUndefined(serverRequestIdTime(`rex_${id.slice(4)}`))
    assert.isUndefined(serverRequestIdTime(id.slice(0, 35)))
  })
})
