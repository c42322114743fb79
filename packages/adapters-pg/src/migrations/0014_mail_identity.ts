import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Password reset requests wait in a table of their own for the worker that looks the account up, so asking for a reset
 * is one insert for any address (its timing tells nothing). The address is kept as typed for one step only: the row
 * goes once handled.
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
})
