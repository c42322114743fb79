import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { migrateWith, migrations } from "../src/index.ts"
import { EmbeddedPostgresTemp, PostgresTestSchema, TestMigrationServices } from "../src/testing.ts"

const databaseUrl = process.env.DATABASE_URL
const targets: ReadonlyArray<readonly [string, Layer.Layer<SqlClient.SqlClient, unknown>]> = [
  ["embedded PostgreSQL", EmbeddedPostgresTemp()],
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [["Postgres at DATABASE_URL", PostgresTestSchema(Redacted.make(databaseUrl))] as const])
]

const migrateUpTo = (last: string) =>
  migrateWith(Object.fromEntries(Object.entries(migrations).filter(([id]) => id <= last))).pipe(Effect.provide(TestMigrationServices))

for (const [label, layer] of targets) {
  describe(`0007 on ${label}`, () => {
    it.live("keeps today's grants, with an empty source reference, and lets other sources grant the same feature", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* migrateUpTo("0004_identity")
        yield* sql`INSERT INTO workspaces (id, name, slug, personal, created_at) VALUES ('ws_m1', 'M', 'm-1', false, now())`
        yield* sql`INSERT INTO entitlements (workspace_id, feature, source, granted_at, expires_at) VALUES ('ws_m1', 'ai.basic', 'plan', now(), NULL)`
        yield* migrateUpTo("0007_purchases")
        const rows = yield* sql<{ feature: string; source: string; source_ref: string }>`SELECT feature, source, source_ref FROM entitlements`
        assert.deepStrictEqual(rows.map((row) => [row.feature, row.source, row.source_ref]), [["ai.basic", "plan", ""]])
        yield* sql`INSERT INTO entitlements (workspace_id, feature, source, source_ref, granted_at) VALUES ('ws_m1', 'ai.basic', 'purchase', 'pur_x', now())`
        const count = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM entitlements WHERE feature = 'ai.basic'`
        assert.deepStrictEqual(count, [{ n: 2 }])
      }).pipe(Effect.provide(layer)), 120_000)
  })
}
