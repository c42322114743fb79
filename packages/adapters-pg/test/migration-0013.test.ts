import { SecretBox, SecretHasher } from "@atrium/domain"
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

// The schema as it stood before 0013, so the test can leave tokens the way older versions wrote them.
const before0013 = migrateWith(Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0013")))

const Sealed = Schema.Array(Schema.Struct({ id: Schema.String, sealed_token: Schema.String, token_digest: Schema.String }))
const decodeSealed = Schema.decodeUnknownEffect(Sealed)

const phone = "ExponentPushToken[legacyphoneaaaaaaaaaaa]"
const tablet = "ExponentPushToken[legacytabletbbbbbbbbbb]"
const departed = "ExponentPushToken[legacydepartedccccccccc]"

for (const [label, database] of targets) {
  describe(`migration 0013 on ${label}`, () => {
    it.live("seals every stored push token with its digest, erases the plaintext columns, and keeps a token on one device", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* before0013
        yield* sql`INSERT INTO users (id, email, name, password_hash, created_at) VALUES ('usr_p', 'p@example.com', 'p', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', now())`
        const device = (id: string, installation: string, token: string) =>
          sql`
            INSERT INTO push_devices (id, user_id, session_id, installation_id, expo_push_token, platform, app_version, locale, created_at, updated_at)
            VALUES (${id}, 'usr_p', 'ses_p', ${installation}, ${token}, 'ios', '1.0.0', 'en', now(), now())
          `
        const message = (id: string, deviceId: string, token: string, status: string) =>
          sql`
            INSERT INTO push_messages (id, user_id, device_id, expo_push_token, category, title, body, data, status, attempts, created_at, updated_at)
            VALUES (${id}, 'usr_p', ${deviceId}, ${token}, 'ai_tasks', 't', 'b', '{}'::jsonb, ${status}, 0, now(), now())
          `
        yield* device("dev_phone", "phone", phone)
        yield* device("dev_tablet", "tablet", tablet)
        yield* message("push_1", "dev_phone", phone, "pending")
        yield* message("push_2", "dev_phone", phone, "sent")
        // A message whose device is long gone still carries its token; it is sealed too.
        yield* message("push_3", "dev_gone", departed, "failed")
        // A history longer than one sealing chunk: every row is reached (the columns end NOT NULL, so one missed fails).
        yield* sql`
          INSERT INTO push_messages (id, user_id, device_id, expo_push_token, category, title, body, data, status, attempts, created_at, updated_at)
          SELECT 'push_bulk_' || lpad(n::text, 5, '0'), 'usr_p', 'dev_tablet', ${tablet}, 'ai_tasks', 't', 'b', '{}'::jsonb, 'delivered', 1, now(), now()
          FROM generate_series(1, 1200) AS n
        `

        assert.deepStrictEqual((yield* runMigrations)[0], [13, "sealed_push_tokens"])

        const box = yield* SecretBox
        const hasher = yield* SecretHasher
        const devices = yield* sql`SELECT id, sealed_token, token_digest FROM push_devices ORDER BY id`.pipe(Effect.flatMap(decodeSealed))
        const messages = yield* sql`SELECT id, sealed_token, token_digest FROM push_messages WHERE id NOT LIKE 'push_bulk_%' ORDER BY id`.pipe(
          Effect.flatMap(decodeSealed)
        )
        const bulk = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM push_messages WHERE id LIKE 'push_bulk_%' AND token_digest = ${devices[1]?.token_digest ?? ""}`
        assert.deepStrictEqual(bulk, [{ n: 1200 }])
        const expected = { dev_phone: phone, dev_tablet: tablet, push_1: phone, push_2: phone, push_3: departed }
        for (const row of [...devices, ...messages]) {
          const token = Object.entries(expected).find(([id]) => id === row.id)?.[1] ?? ""
          assert.strictEqual(Redacted.value(yield* box.open(row.sealed_token)), token, row.id)
          assert.strictEqual(row.token_digest, yield* hasher.digest(Redacted.make(token)), row.id)
        }
        assert.deepStrictEqual([...devices, ...messages].map((row) => row.id), Object.keys(expected))

        // No plaintext left in a column, and no column left for it.
        const raw = JSON.stringify([yield* sql`SELECT * FROM push_devices`, yield* sql`SELECT * FROM push_messages`])
        for (const token of [phone, tablet, departed]) assert.notInclude(raw, token.slice(18, -1))
        const columns = yield* sql<{ column_name: string }>`
          SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name IN ('push_devices', 'push_messages') AND column_name = 'expo_push_token'
        `
        assert.deepStrictEqual(columns, [])

        // The digest is the unique key now: a second device with the phone's token is refused.
        const twin = yield* sql`
          INSERT INTO push_devices (id, user_id, session_id, installation_id, sealed_token, token_digest, platform, app_version, locale, created_at, updated_at)
          VALUES ('dev_twin', 'usr_p', 'ses_p', 'twin', 'v1.x.y', ${devices[0]?.token_digest ?? ""}, 'ios', '1.0.0', 'en', now(), now())
        `.pipe(Effect.exit)
        assert.strictEqual(twin._tag, "Failure")
      }).pipe(Effect.provide(TestMigrationServices), Effect.provide(database)), 120_000)
  })
}
