import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Token and counter columns become 64-bit: a month of a busy workspace's tokens (and one absurd provider answer
 * before the runner refused such answers) overflowed `integer` during settlement. Checks are kept by the type change.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE ai_tasks
      ALTER COLUMN max_output_tokens TYPE bigint,
      ALTER COLUMN input_tokens TYPE bigint,
      ALTER COLUMN output_tokens TYPE bigint,
      ALTER COLUMN attempts TYPE bigint
  `
  yield* sql`
    ALTER TABLE usage_records
      ALTER COLUMN input_tokens TYPE bigint,
      ALTER COLUMN output_tokens TYPE bigint
  `
  yield* sql`ALTER TABLE monthly_usage ALTER COLUMN task_count TYPE bigint`
  yield* sql`ALTER TABLE billing_accounts ALTER COLUMN task_cap TYPE bigint`
})
