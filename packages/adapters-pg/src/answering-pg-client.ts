import { withDeadline } from "@atrium/domain"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Duration, Effect, Exit, Predicate } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { ConnectionError, SqlError, UnknownError } from "effect/sql/SqlError"

/**
 * How long a statement may wait for its answer where the client's query timeout is too short for the work: schema
 * migrations, whose statements may rewrite a large table. `undefined` (the default) keeps the client's timeout.
 */
export const StatementBudget = Context.Reference<Duration.Duration | undefined>("@atrium/adapters-pg/StatementBudget", {
  defaultValue: () => undefined
})

// PostgreSQL answers `ROLLBACK` to a `COMMIT` of an aborted transaction: that commit failed.
const commit = (connection: Connection) =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    Predicate.hasProperty(result, "command") && result.command === "ROLLBACK"
      ? Effect.fail(new SqlError({ reason: new UnknownError({ cause: new Error("COMMIT rolled back an aborted transaction"), message: "COMMIT rolled back an aborted transaction", operation: "commit" }) }))
      : Effect.void)

/**
 * `PgClient.make` (sql-pg's own pool, sessions, JSON and LISTEN) with every wait on the server bounded by
 * `queryTimeout`: a statement with its wait for a session, a transaction's start and each of its statements, a wait to
 * listen. A server that stops answering — frozen, or a peer the network still acknowledges — fails the call with a
 * `ConnectionError` (`Unavailable` to the domain) instead of holding its caller; the call is interrupted in the
 * background, where the driver cancels or retires the session. `statement_timeout` cannot do this: a frozen server
 * enforces nothing.
 */
export const makeAnsweringPgClient = Effect.fnUntraced(function*(config: PgClient.PgPoolConfig, queryTimeout: Duration.Duration) {
  const pg = yield* PgClient.make(config)
  const millis = Duration.toMillis(queryTimeout)
  const late = (operation: string) => () =>
    Exit.fail(new SqlError({ reason: new ConnectionError({ cause: new Error(`No answer within ${millis} ms`), message: "PostgreSQL did not answer in time", operation }) }))
  // The bound of a call: the query timeout, or the longer budget its fiber was given.
  const within = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>, onLate: () => Exit.Exit<A, E | SqlError>) =>
    Effect.flatMap(StatementBudget, (budget) => withDeadline(effect, budget === undefined ? millis : Duration.toMillis(budget), onLate))
  // A transaction's session: each call answers in time; after one did not, the session is lost to the transaction and
  // the rest (the ROLLBACK) fail at once — releasing a session with work outstanding makes the driver close it.
  const inTransaction = (session: Connection): Connection => {
    let lost = false
    const bound = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> =>
      lost ? late("query")() : within(effect, () => {
        lost = true
        return late("query")()
      })
    return {
      execute: (sql, params, transformRows) => bound(session.execute(sql, params, transformRows)),
      executeRaw: (sql, params) => bound(session.executeRaw(sql, params)),
      executeStream: (sql, params, transformRows) => session.executeStream(sql, params, transformRows),
      executeValues: (sql, params) => bound(session.executeValues(sql, params)),
      executeValuesUnprepared: (sql, params) => bound(session.executeValuesUnprepared(sql, params)),
      executeUnprepared: (sql, params, transformRows) => bound(session.executeUnprepared(sql, params, transformRows))
    }
  }
  const reserve = withDeadline(pg.reserve, millis, late("acquire"))
  const client = yield* SqlClient.make({
    acquirer: reserve,
    borrower: (f) => within(Effect.scoped(Effect.flatMap(pg.reserve, f)), late("query")),
    transactionAcquirer: Effect.map(reserve, inTransaction),
    compiler: PgClient.makeCompiler(config.transformQueryNames, config.transformJson),
    driver: pg.driver,
    prepareTransactionControls: true,
    commit,
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", config.database ?? config.username ?? "postgres"]]
  })
  const answering: PgClient.PgClient = Object.assign(client, {
    [PgClient.TypeId]: PgClient.TypeId,
    config: pg.config,
    json: pg.json,
    // A listener holds its session for as long as it listens: nothing to bound but the wait to start.
    listen: (channel: string) => within(pg.listen(channel), late("acquire")),
    notify: (channel: string, payload: string) => within(pg.notify(channel, payload), late("query"))
  })
  return answering
})
