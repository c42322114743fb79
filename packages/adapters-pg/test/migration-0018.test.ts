import { ApiKeyId, type Page, type RequestLogEntry, RequestLogRepository, WorkspaceId } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, type Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { migrateWith, migrations, RequestLogRepositoryPg, runMigrations } from "../src/index.ts"
import { EmbeddedPostgresTemp, PostgresTestSchema, TestMigrationServices } from "../src/testing.ts"

const databaseUrl = process.env.DATABASE_URL
const targets: ReadonlyArray<readonly [string, Layer.Layer<SqlClient.SqlClient, unknown>]> = [
  ["embedded PostgreSQL", EmbeddedPostgresTemp({ maxConnections: 1 })],
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [["Postgres at DATABASE_URL", PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 1 })] as const])
]

// The schema as it stood before 0018, so the test can leave request-log lines the way older versions wrote them.
const before0018 = migrateWith(Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0018")))
const workspaceId = WorkspaceId.make("ws_before0018")
const always = DateTime.makeUnsafe(0)

for (const [label, database] of targets) {
  describe(`migration 0018 on ${label}`, () => {
    it.live("moves every line written before it into batches: each listed in order, found by its request id, then pruned by age", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* before0018
        // 12,001 lines of key A (more than one batch of the move), two of key B at the same times, one of another workspace.
        yield* sql`
          INSERT INTO request_logs (workspace_id, key_id, method, route, status, duration_ms, request_id, created_at)
          SELECT ${workspaceId}, 'key_a', 'GET', '/api/v1/workspaces/current', 200, 1.5, 'a' || i, to_timestamp(1790000000 + i / 10.0)
          FROM generate_series(0, 12000) AS i
        `
        yield* sql`
          INSERT INTO request_logs (workspace_id, key_id, method, route, status, duration_ms, request_id, created_at) VALUES
            (${workspaceId}, 'key_b', 'POST', '/api/v1/ai-tasks', 403, 2, 'req_0123456789abcdef0123456789abcdef', to_timestamp(1790000000)),
            (${workspaceId}, 'key_b', 'GET', '/api/v1/entitlements', 200, 0.25, 'b-last', to_timestamp(1790001300)),
            ('ws_other0018', 'key_c', 'GET', '/api/v1/entitlements', 200, 0.25, 'c', to_timestamp(1790000000))
        `
        assert.deepStrictEqual((yield* runMigrations)[0], [18, "request_log_batches"])

        const repo = yield* RequestLogRepository
        const first = yield* repo.list(workspaceId, {}, { limit: 3, cursor: undefined }, always)
        assert.deepStrictEqual(
          first.data.map((line) => [line.keyId, line.method, line.route, line.status, line.durationMs, line.requestId, DateTime.toEpochMillis(line.createdAt)]),
          [
            [ApiKeyId.make("key_b"), "GET", "/api/v1/entitlements", 200, 0.25, "b-last", 1_790_001_300_000],
            [ApiKeyId.make("key_a"), "GET", "/api/v1/workspaces/current", 200, 1.5, "a12000", 1_790_001_200_000],
            [ApiKeyId.make("key_a"), "GET", "/api/v1/workspaces/current", 200, 1.5, "a11999", 1_790_001_199_900]
          ]
        )
        const keyA = yield* repo.list(workspaceId, { keyId: ApiKeyId.make("key_a") }, { limit: 100, cursor: undefined }, always)
        assert.strictEqual(keyA.data.length, 100)
        let seen = 0
        let cursor: string | undefined = undefined
        for (let pages = 0; pages < 200 && (pages === 0 || cursor !== undefined); pages++) {
          const page: Page<RequestLogEntry> = yield* repo.list(workspaceId, { keyId: ApiKeyId.make("key_a") }, { limit: 100, cursor }, always)
          seen += page.data.length
          cursor = page.nextCursor ?? undefined
        }
        assert.strictEqual(seen, 12_001)
        // An id shaped like the server's, written before the server's ids held their time, is still found.
        const lookedUp = yield* repo.list(workspaceId, { requestId: "req_0123456789abcdef0123456789abcdef" }, { limit: 5, cursor: undefined }, always)
        assert.deepStrictEqual(lookedUp.data.map((line) => line.status), [403])
        assert.deepStrictEqual((yield* repo.list(workspaceId, { requestId: "a5000" }, { limit: 5, cursor: undefined }, always)).data.map((line) => line.requestId), ["a5000"])
        assert.deepStrictEqual((yield* repo.list(workspaceId, { requestId: "c" }, { limit: 5, cursor: undefined }, always)).data, [])
        // Gone: key A's first batch of the move (its first 10,000 lines) and the other workspace's line; key B's batch and
        // A's second end after the cutoff.
        assert.strictEqual(yield* repo.pruneBefore(DateTime.makeUnsafe(1_790_001_100_000)), 10_000 + 1)
      }).pipe(Effect.provide(RequestLogRepositoryPg), Effect.provide(TestMigrationServices), Effect.provide(database)), 180_000)
  })
}
