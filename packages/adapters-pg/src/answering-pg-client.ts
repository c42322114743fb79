import { withDeadline } from "@atrium/domain"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Duration, Effect, Exit } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { ConnectionError, SqlError } from "effect/sql/SqlError"

/**
 * How long a statement may wait for its answer where the client's query timeout is too short for the work: schema
 * migrations, whose statements may rewrite a large table. `undefined` (the default) keeps the client's timeout.
 */
export const StatementBudget = Context.Reference<Duration.Duration | undefined>("@atrium/adapters-pg/StatementBudget", {
  defaultValue: () => undefined
})

/**
 * `PgClient.make` (sql-pg's own pool, sessions, commit check, JSON and LISTEN) with every unit of work bounded by
 * `queryTimeout`: a statement with its wait for a pooled connection, a whole transaction, a wait to listen. A server
 * that stops answering — frozen, or a peer the network still acknowledges — fails the call with a `ConnectionError`
 * (`Unavailable` to the domain) instead of holding its caller; the call is interrupted in the background, where the
 * driver cancels or retires the session. `statement_timeout` cannot do this: a frozen server enforces nothing.
 */
export const makeAnsweringPgClient = Effect.fnUntraced(function*(config: PgClient.PgPoolConfig, queryTimeout: Duration.Duration) {
  const pg = yield* PgClient.make(config)
  const millis = Duration.toMillis(queryTimeout)
  const late = (operation: string, bound: number) => () =>
    Exit.fail(new SqlError({ reason: new ConnectionError({ cause: new Error(`No answer within ${bound} ms`), message: "PostgreSQL did not answer in time", operation }) }))
  // The bound of a call: the query timeout, or the longer budget its fiber was given.
  const within = (operation: string) => <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>) =>
    Effect.flatMap(StatementBudget, (budget) => {
      const bound = budget === undefined ? millis : Duration.toMillis(budget)
      return withDeadline(effect, bound, late(operation, bound))
    })
  const acquirer = within("acquire")(pg.reserve)
  // Statements outside a transaction borrow a session of sql-pg's pool; inside one they run on its session, which
  // `pg.withTransaction` provides under the same transaction service.
  const client = yield* SqlClient.make({
    acquirer,
    borrower: (f) => within("query")(Effect.scoped(Effect.flatMap(pg.reserve, f))),
    transactionService: pg.transactionService,
    compiler: PgClient.makeCompiler(config.transformQueryNames, config.transformJson),
    driver: pg.driver,
    spanAttributes: [["db.system.name", "postgresql"]]
  })
  const bounded: PgClient.PgClient = Object.assign(client, {
    [PgClient.TypeId]: PgClient.TypeId,
    config: pg.config,
    json: pg.json,
    withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => within("transaction")(pg.withTransaction(effect)),
    afterCommit: pg.afterCommit,
    listen: (channel: string) => within("acquire")(pg.listen(channel)),
    notify: (channel: string, payload: string) => within("query")(pg.notify(channel, payload))
  })
  return bounded
})
