import { withDeadline } from "@atrium/domain"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import * as PgPool from "@effect/sql-pg/PgPool"
import { Context, Duration, Effect, Exit, Predicate, Stream } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { ConnectionError, SqlError, UnknownError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"

/**
 * How long a statement may wait for its answer where the client's query timeout is too short for the work: schema
 * migrations, whose statements may rewrite a large table. `undefined` (the default) keeps the client's timeout.
 */
export const StatementBudget = Context.Reference<Duration.Duration | undefined>("@atrium/adapters-pg/StatementBudget", {
  defaultValue: () => undefined
})

/** Whether a call may take its time (a pooled statement, bounded as a whole) or must answer in time (in a transaction). */
type Bound = <A>(effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, SqlError>

const unbounded: Bound = (effect) => effect

// The driver's session as the SQL client sees it (what `PgClient.make` builds), each call passed through `bound`.
const connectionOf = (session: PgConnection.PgConnection, bound: Bound): Connection => {
  const rows = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
    bound(Effect.map(session.query(sql, params, prepare), (result) => result.rows))
  return {
    execute: (sql, params, transformRows) => transformRows === undefined ? rows(sql, params, true) : Effect.map(rows(sql, params, true), transformRows),
    executeRaw: (sql, params) => bound(session.query(sql, params)),
    executeStream: (sql, params, transformRows) => {
      const stream = session.stream(sql, params)
      // Row by row: the transform keeps each row (renamed columns), never drops one.
      return transformRows === undefined ? stream : Stream.map(stream, (row) => transformRows([row])[0] ?? row)
    },
    executeValues: (sql, params) => bound(session.queryValues(sql, params)),
    executeValuesUnprepared: (sql, params) => bound(session.queryValues(sql, params, false)),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows === undefined ? rows(sql, params, false) : Effect.map(rows(sql, params, false), transformRows)
  }
}

// PostgreSQL answers `ROLLBACK` to a `COMMIT` of an aborted transaction: that commit failed.
const commit = (connection: Connection) =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    Predicate.hasProperty(result, "command") && result.command === "ROLLBACK"
      ? Effect.fail(new SqlError({ reason: new UnknownError({ cause: new Error("COMMIT rolled back an aborted transaction"), message: "COMMIT rolled back an aborted transaction", operation: "commit" }) }))
      : Effect.void)

// The JSON parameter `PgClient` compiles (its compiler handles this kind).
const PgJson = Statement.custom<Statement.Custom<"PgJson", unknown>>("PgJson")

/**
 * `PgClient.make` whose every wait on the server is bounded by `queryTimeout`: a statement (with its wait for a pooled
 * connection), a transaction's start and each of its statements. A server that stops answering — frozen, or a peer
 * the network still acknowledges — fails the call with a `ConnectionError` (`Unavailable` to the domain) instead of
 * holding its caller; the call itself is interrupted in the background, where the driver cancels or retires the
 * session. `statement_timeout` cannot do this: a frozen server enforces nothing.
 */
export const makeAnsweringPgClient = Effect.fnUntraced(function*(config: PgClient.PgPoolConfig, queryTimeout: Duration.Duration) {
  const pool = yield* PgPool.make(config)
  const millis = Duration.toMillis(queryTimeout)
  // The bound of a call: the query timeout, or the longer budget its fiber was given.
  const within = <A, E, R>(effect: Effect.Effect<A, E, R>, onLate: () => Exit.Exit<A, E>) =>
    Effect.flatMap(StatementBudget, (budget) => withDeadline(effect, budget === undefined ? millis : Duration.toMillis(budget), onLate))
  const late = (operation: string) => () =>
    Exit.fail(new SqlError({ reason: new ConnectionError({ cause: new Error(`No answer within ${millis} ms`), message: "PostgreSQL did not answer in time", operation }) }))
  const pooled = (session: PgConnection.PgConnection) => connectionOf(session, unbounded)
  // In a transaction each call answers in time; after one did not, the session is lost to it and the rest (the
  // ROLLBACK) fail at once — releasing the session with work outstanding makes the driver close it.
  const inTransaction = (session: PgConnection.PgConnection) => {
    let lost = false
    const bound: Bound = (effect) => lost ? late("query")() : within(effect, () => {
      lost = true
      return late("query")()
    })
    return connectionOf(session, bound)
  }
  const transformRows = config.transformResultNames === undefined
    ? undefined
    : Statement.defaultTransforms(config.transformResultNames, config.transformJson).array
  const acquirer = Effect.map(withDeadline(pool.get, millis, late("acquire")), pooled)
  const client = yield* SqlClient.make({
    acquirer,
    borrower: (f) => within(pool.use((session) => f(pooled(session))), late("query")),
    transactionAcquirer: Effect.map(withDeadline(pool.reserve, millis, late("acquire")), inTransaction),
    compiler: PgClient.makeCompiler(config.transformQueryNames, config.transformJson),
    driver: "pg",
    prepareTransactionControls: true,
    commit,
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    spanAttributes: [
      ...(config.spanAttributes === undefined ? [] : Object.entries(config.spanAttributes)),
      ["db.system.name", "postgresql"],
      ["db.namespace", config.database ?? config.username ?? "postgres"],
      ["server.address", config.host ?? "localhost"],
      ["server.port", config.port ?? 5432]
    ],
    transformRows
  })
  const pgClient: PgClient.PgClient = Object.assign(client, {
    [PgClient.TypeId]: PgClient.TypeId,
    config,
    json: (value: unknown) => Statement.fragment([PgJson(value)]),
    // A listener holds its session for as long as it listens: nothing to bound but the wait for it.
    listen: (channel: string) => Effect.flatMap(withDeadline(pool.reserve, millis, late("acquire")), (session) => session.listen(channel)),
    notify: (channel: string, payload: string) =>
      Effect.asVoid(Effect.scoped(Effect.flatMap(acquirer, (connection) => connection.executeRaw("SELECT pg_notify($1, $2)", [channel, payload]))))
  })
  return pgClient
})
