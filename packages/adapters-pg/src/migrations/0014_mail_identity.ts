import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Password reset requests wait in a table of their own for the worker that looks the account up, so asking for a reset
 * is one insert for any address (its timing tells nothing); the row goes once handled. An account's address keeps the
 * case of its local part as given (RFC 5321) and stays unique without case through `email_key`, which the app computes
 * (Postgres' `lower()` follows the database's locale, JavaScript's does not): existing addresses were stored all
 * lower-case, so each is its own key.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE password_reset_requests (
      id text PRIMARY KEY,
      email text NOT NULL,
      requested_at timestamptz NOT NULL,
      due_at timestamptz NOT NULL
    )
  `
  yield* sql`CREATE INDEX password_reset_requests_due_idx ON password_reset_requests (due_at, id)`
  yield* sql`ALTER TABLE users ADD COLUMN email_key text`
  yield* sql`UPDATE users SET email_key = email`
  yield* sql`
    ALTER TABLE users ALTER COLUMN email_key SET NOT NULL,
      ADD CONSTRAINT users_email_key_unique UNIQUE (email_key),
      DROP CONSTRAINT users_email_key,
      DROP CONSTRAINT users_email_check,
      ADD CONSTRAINT users_email_check CHECK (email !~ '[[:space:]]'),
      ADD CONSTRAINT users_email_key_check CHECK (email_key !~ '[A-Z[:space:]]')
  `
})
