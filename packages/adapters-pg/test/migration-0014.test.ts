import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { migrateWith, migrations, runMigrations } from "../src/index.ts"
import { EmbeddedPostgresTemp, PostgresTestSchema, TestMigrationServices } from "../src/testing.ts"

const databaseUrl = process.env.DATABASE_URL
const targets: ReadonlyArray<readonly [string, Layer.Layer<SqlClient.SqlClient, unknown>]> = [
  ["embedded PostgreSQL", EmbeddedPostgresTemp({ maxConnections: 1 })],
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [["Postgres at DATABASE_URL", PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 1 })] as const])
]

// The schema as it stood before 0014, so the test can leave users the way older versions wrote them.
const before0014 = migrateWith(Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0014")))

const decodeUsers = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String, email: Schema.String, email_key: Schema.String })))
const hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"

for (const [label, database] of targets) {
  describe(`migration 0014 on ${label}`, () => {
    it.live("keys existing accounts by their (lower-case) address, then keeps a local part's case while refusing a case twin", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* before0014
        yield* sql`INSERT INTO users (id, email, name, password_hash, created_at) VALUES ('usr_ada', 'ada@example.com', 'a', ${hash}, now())`
        // Before: the local part could not keep its case.
        assert.strictEqual((yield* sql`INSERT INTO users (id, email, name, password_hash, created_at) VALUES ('usr_x', 'X@example.com', 'x', ${hash}, now())`.pipe(Effect.exit))._tag, "Failure")

        assert.deepStrictEqual((yield* runMigrations)[0], [14, "mail_identity"])

        const insert = (id: string, email: string, key: string) =>
          sql`INSERT INTO users (id, email, email_key, name, password_hash, created_at) VALUES (${id}, ${email}, ${key}, 'n', ${hash}, now())`.pipe(Effect.exit)
        assert.strictEqual((yield* insert("usr_bob", "Bob.Smith@example.com", "bob.smith@example.com"))._tag, "Success")
        assert.strictEqual((yield* insert("usr_twin", "ADA@example.com", "ada@example.com"))._tag, "Failure")
        assert.strictEqual((yield* insert("usr_upper_key", "Cy@example.com", "Cy@example.com"))._tag, "Failure")
        const users = yield* sql`SELECT id, email, email_key FROM users ORDER BY id`.pipe(Effect.flatMap(decodeUsers))
        assert.deepStrictEqual(users, [
          { id: "usr_ada", email: "ada@example.com", email_key: "ada@example.com" },
          { id: "usr_bob", email: "Bob.Smith@example.com", email_key: "bob.smith@example.com" }
        ])
        yield* sql`INSERT INTO password_reset_requests (id, email, requested_at, due_at) VALUES ('prr_1', 'ada@example.com', now(), now())`
      }).pipe(Effect.provide(TestMigrationServices), Effect.provide(database)), 120_000)
  })
}
