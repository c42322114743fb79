import { normalizeEmail } from "@atrium/domain"
import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"

const decodeEmails = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String, email: Schema.String })))

/**
 * Every superseded access token kept beside the refresh token retired with it (not just the last one), a rotation salt
 * for the refresh leeway, the successor of a rolled API key, and stored emails brought to the stricter normal form.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Superseded access digests move to the retired-token rows; the session's single "previous" column goes.
  yield* sql`ALTER TABLE session_refresh_tokens ADD COLUMN access_digest text`
  yield* sql`
    UPDATE session_refresh_tokens r SET access_digest = s.previous_access_digest
    FROM sessions s
    WHERE r.session_id = s.id AND s.previous_access_digest IS NOT NULL
      AND r.retired_at = (SELECT max(retired_at) FROM session_refresh_tokens latest WHERE latest.session_id = s.id)
  `
  yield* sql`CREATE INDEX session_refresh_tokens_access_digest_idx ON session_refresh_tokens (access_digest) WHERE access_digest IS NOT NULL`
  yield* sql`DROP INDEX sessions_previous_access_digest_idx`
  yield* sql`ALTER TABLE sessions DROP COLUMN previous_access_digest`
  yield* sql`ALTER TABLE sessions ADD COLUMN rotation_salt text`

  yield* sql`ALTER TABLE api_keys ADD COLUMN replaced_by text`

  // Emails were stored trimmed and lower-cased; the normal form also folds fullwidth forms and drops invisible
  // characters. An address whose normal form another (older) account already holds, or that mixes scripts, is a
  // lookalike: it stays as stored, so it can no longer be signed in to by typing the address it imitates, and is logged.
  const users = yield* sql`SELECT id, email FROM users ORDER BY created_at, id`.pipe(Effect.flatMap(decodeEmails))
  const taken = new Set(users.map((user) => user.email))
  for (const user of users) {
    const normal = normalizeEmail(user.email)
    if (Option.isNone(normal)) {
      yield* Effect.logWarning("account email mixes scripts; left as stored, it no longer signs in").pipe(Effect.annotateLogs({ userId: user.id }))
    } else if (normal.value !== user.email) {
      if (taken.has(normal.value)) {
        yield* Effect.logWarning("account email is a lookalike of an older account's; left as stored").pipe(Effect.annotateLogs({ userId: user.id }))
      } else {
        yield* sql`UPDATE users SET email = ${normal.value} WHERE id = ${user.id}`
        taken.add(normal.value)
      }
    }
  }
  const invitations = yield* sql`SELECT id, email FROM invitations WHERE accepted_at IS NULL AND revoked_at IS NULL`.pipe(
    Effect.flatMap(decodeEmails)
  )
  for (const invitation of invitations) {
    const normal = normalizeEmail(invitation.email)
    if (Option.isSome(normal) && normal.value !== invitation.email) {
      yield* sql`UPDATE invitations SET email = ${normal.value} WHERE id = ${invitation.id}`
    }
  }
})
