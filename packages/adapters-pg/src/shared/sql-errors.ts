import { Unavailable } from "@atrium/domain"
import { Effect, Predicate, type Schema } from "effect"
import type { SqlError, SqlErrorReason } from "effect/sql/SqlError"

// SQLSTATE classes a healthy schema and correct queries still meet when the server is down, restarting
// or overloaded: 53 insufficient resources (too many connections, disk full), 57 operator intervention
// (admin shutdown, cannot connect now), 58 system error (I/O). sql-pg reports these as `UnknownError`.
const unavailableSqlStates = /^(?:53|57|58)/

const sqlStateOf = (reason: SqlErrorReason): string | undefined =>
  Predicate.hasProperty(reason.cause, "code") && typeof reason.cause.code === "string" ? reason.cause.code : undefined

/**
 * Whether a SQL failure means "the database cannot answer right now" (retry later) rather than a bug.
 * Connection failures and every retryable reason (deadlock, serialization, lock or statement timeout)
 * qualify, so a lookup failing because the database is down answers 503, never 401 or 500.
 */
export const isUnavailable = (error: SqlError): boolean => {
  const reason = error.reason
  if (reason._tag === "ConnectionError" || reason.isRetryable) return true
  if (reason._tag !== "UnknownError") return false
  const state = sqlStateOf(reason)
  return state !== undefined && unavailableSqlStates.test(state)
}

/** The domain error for a database that cannot answer. */
const databaseUnavailable = (): Unavailable => new Unavailable({ dependency: "database" })

/** Maps a SQL failure to `Unavailable` when the database is down, and to a defect otherwise (a bug, not a state). */
export const sqlFailure = (error: SqlError): Effect.Effect<never, Unavailable> =>
  isUnavailable(error) ? Effect.fail(databaseUnavailable()) : Effect.die(error)

/** Runs a repository statement: database outages become `Unavailable`, everything else (bad SQL, undecodable rows) a defect. */
export const orUnavailable = <A, R>(
  effect: Effect.Effect<A, SqlError | Schema.SchemaError, R>
): Effect.Effect<A, Unavailable, R> =>
  Effect.catch(effect, (error) => error._tag === "SqlError" ? sqlFailure(error) : Effect.die(error))
