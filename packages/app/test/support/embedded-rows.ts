// Conditions only the database holds (a background step recorded, nothing left due), read from a test in the running
// server's embedded database, which the test process joins as one more user, as a second server would.
import { EmbeddedPostgres } from "@atrium/adapters-pg"
import { Effect, Schedule } from "effect"
import type { SqlError } from "effect/sql"
import { SqlClient } from "effect/sql/SqlClient"

/** Resolves with what `read` returns once `check` holds of it (read again every 20 ms); rejects after `withinMs`. */
export const untilRows = <A>(
  dataDir: string,
  read: (sql: SqlClient) => Effect.Effect<A, SqlError.SqlError>,
  check: (value: A) => boolean,
  withinMs = 20_000
): Promise<A> =>
  Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient
    return yield* read(sql).pipe(Effect.repeat({ until: check, schedule: Schedule.spaced("20 millis") }), Effect.timeout(withinMs))
  }).pipe(Effect.provide(EmbeddedPostgres({ dataDir }))))
