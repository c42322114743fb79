import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** A run catch-up passed over is kept as skipped with the reason `missed`. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE schedule_runs DROP CONSTRAINT schedule_runs_reason_check`
  yield* sql`
    ALTER TABLE schedule_runs ADD CONSTRAINT schedule_runs_reason_check
      CHECK (reason IN ('overlap', 'not_entitled', 'usage_cap_reached', 'insufficient_credits', 'invalid_task', 'missed'))
  `
})
