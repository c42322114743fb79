import { type SealedPushToken, sealPushToken } from "@atrium/domain"
import { Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String, token: Schema.String })))
// Rows sealed per statement: memory stays bounded on a long outbox history.
const chunk = 500

/**
 * Push tokens leave plaintext: devices and messages keep each token sealed under the server key beside its keyed digest,
 * which now keeps a token on one device. SQL has no key, so existing rows are sealed here, app-side, inside the
 * migration's transaction; the plaintext is erased from each row as it is sealed and its column then dropped.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const sealTable = Effect.fnUntraced(function*(table: "push_devices" | "push_messages") {
    yield* sql`
      ALTER TABLE ${sql(table)} ADD COLUMN sealed_token text CHECK (sealed_token LIKE 'v1.%'), ADD COLUMN token_digest text,
        ALTER COLUMN expo_push_token DROP NOT NULL
    `
    let after = ""
    while (true) {
      const rows = yield* sql`
        SELECT id, expo_push_token AS token FROM ${sql(table)} WHERE id > ${after} ORDER BY id LIMIT ${chunk}
      `.pipe(Effect.flatMap(decodeRows))
      const last = rows.at(-1)
      if (last === undefined) return
      // A device and its many messages share a token: each distinct token of the chunk is sealed once.
      const byToken = new Map<string, SealedPushToken>()
      const seals: Array<string> = []
      const digests: Array<string> = []
      for (const row of rows) {
        const found = byToken.get(row.token) ?? (yield* sealPushToken(Redacted.make(row.token)))
        byToken.set(row.token, found)
        seals.push(found.sealedToken)
        digests.push(found.tokenDigest)
      }
      yield* sql`
        UPDATE ${sql(table)} t SET sealed_token = v.sealed_token, token_digest = v.token_digest, expo_push_token = NULL
        FROM unnest(${rows.map((row) => row.id)}::text[], ${seals}::text[], ${digests}::text[]) AS v(id, sealed_token, token_digest)
        WHERE t.id = v.id
      `
      after = last.id
    }
  })

  yield* sealTable("push_devices")
  yield* sealTable("push_messages")
  // Dropping the plaintext column drops its unique key; the digest's takes its place.
  yield* sql`
    ALTER TABLE push_devices DROP COLUMN expo_push_token, ALTER COLUMN sealed_token SET NOT NULL, ALTER COLUMN token_digest SET NOT NULL,
      ADD CONSTRAINT push_devices_token_digest_key UNIQUE (token_digest)
  `
  yield* sql`
    ALTER TABLE push_messages DROP COLUMN expo_push_token, ALTER COLUMN sealed_token SET NOT NULL, ALTER COLUMN token_digest SET NOT NULL
  `
})
