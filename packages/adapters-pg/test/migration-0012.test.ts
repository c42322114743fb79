import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { migrateWith, migrations, runMigrations } from "../src/index.ts"
import { PostgresTestSchema, TestMigrationServices } from "../src/testing.ts"

const databaseUrl = process.env.DATABASE_URL

const decodeEmails = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String, email: Schema.String })))
const decodeAccess = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ digest: Schema.String, access_digest: Schema.NullOr(Schema.String) })))

// The schema as it stood before 0012, so the test can leave rows the way older versions wrote them.
const before0012 = migrateWith(Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0012")))

// Only a real server can be taken to an older schema and forward again; CI sets DATABASE_URL.
if (databaseUrl !== undefined && databaseUrl !== "") {
  describe("migration 0012 on existing data at DATABASE_URL", () => {
    it.effect("renormalises stored emails (a lookalike of an older account stays as stored) and keeps superseded access tokens", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* before0012
        const hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"
        const user = (id: string, email: string, second: number) =>
          sql`INSERT INTO users (id, email, name, password_hash, created_at) VALUES (${id}, ${email}, 'x', ${hash}, ${new Date(second * 1000)})`
        yield* user("usr_fullwidth", "ｂｏｂ@example.com", 1)
        yield* user("usr_original", "ada@example.com", 2)
        yield* user("usr_twin", "a\u200Bda@example.com", 3)
        yield* user("usr_mixed", "\u0430da@example.org", 4)
        yield* sql`INSERT INTO workspaces (id, name, slug, personal, created_at) VALUES ('ws_m', 'm', 'm-12', false, now())`
        yield* sql`
          INSERT INTO sessions (id, user_id, active_workspace_id, access_digest, previous_access_digest, access_expires_at,
            refresh_digest, refresh_expires_at, generation, created_at, last_used_at)
          VALUES ('ses_m', 'usr_original', 'ws_m', 'access-2', 'access-1', now(), 'refresh-2', now() + interval '1 day', 2, now(), now())
        `
        yield* sql`INSERT INTO session_refresh_tokens (digest, session_id, retired_at) VALUES ('refresh-0', 'ses_m', now() - interval '2 minutes')`
        yield* sql`INSERT INTO session_refresh_tokens (digest, session_id, retired_at) VALUES ('refresh-1', 'ses_m', now() - interval '1 minute')`

        yield* runMigrations

        const emails = yield* sql`SELECT id, email FROM users ORDER BY id`.pipe(Effect.flatMap(decodeEmails))
        assert.deepStrictEqual(Object.fromEntries(emails.map((row) => [row.id, row.email])), {
          usr_fullwidth: "bob@example.com",
          usr_original: "ada@example.com",
          usr_twin: "a\u200Bda@example.com",
          usr_mixed: "\u0430da@example.org"
        })
        const retired = yield* sql`SELECT digest, access_digest FROM session_refresh_tokens ORDER BY digest`.pipe(Effect.flatMap(decodeAccess))
        assert.deepStrictEqual(retired, [{ digest: "refresh-0", access_digest: null }, { digest: "refresh-1", access_digest: "access-1" }])
      }).pipe(Effect.provide([PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 1 }), TestMigrationServices])))
  })
}
