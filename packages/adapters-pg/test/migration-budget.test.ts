import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { migrateWith } from "../src/index.ts"
import { EmbeddedPostgresTemp, PostgresTestSchema, TestMigrationServices } from "../src/testing.ts"

// Far shorter than the migration below: a request's statement of that length is cut off, by the client or the server.
const short = { queryTimeout: "300 millis", statementTimeout: "300 millis" } as const

// A migration whose one statement runs longer than a request's statement may (a large table being rewritten).
const slow = { "0001_slow": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_sleep(0.8)`) }

const targets: ReadonlyArray<readonly [string, Layer.Layer<SqlClient.SqlClient, unknown>]> = [
  ["the embedded server", EmbeddedPostgresTemp(short)],
  ...(process.env.DATABASE_URL ? [["DATABASE_URL", PostgresTestSchema(Redacted.make(process.env.DATABASE_URL), short)] as const] : [])
]

for (const [name, layer] of targets) {
  describe(`migrations on ${name}`, () => {
    it.live("a migration statement may run past the query and statement timeouts that bound a request's", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // The same statement outside a migration is refused: the bound the migration escapes is real.
        const refused = yield* Effect.flip(sql`SELECT pg_sleep(0.8)`)
        assert.strictEqual(refused._tag, "SqlError")
        const ran = yield* migrateWith(slow).pipe(Effect.provide(TestMigrationServices))
        assert.deepStrictEqual(ran.map(([id, name]) => [id, name]), [[1, "slow"]])
        // The budget was the migration's own: the next plain statement is bounded again.
        yield* Effect.flip(sql`SELECT pg_sleep(0.8)`)
      }).pipe(Effect.provide(layer)), 60_000)
  })
}
