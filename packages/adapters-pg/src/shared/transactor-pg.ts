import { Transactor } from "@atrium/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isSqlError } from "effect/sql/SqlError"
import { sqlFailure } from "./sql-errors.ts"

/**
 * Postgres transactions via `sql.withTransaction`: repository calls inside run on the transaction's
 * connection, nested calls become savepoints, and any failure rolls everything back.
 */
export const TransactorPg = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return Transactor.of({
      withTransaction: Effect.fn("Transactor.withTransaction")(function*(effect) {
        // Only BEGIN/COMMIT/ROLLBACK and acquiring the connection fail with `SqlError` here:
        // the repositories inside have already mapped theirs.
        return yield* sql.withTransaction(effect).pipe(Effect.catchIf(isSqlError, sqlFailure))
      }),
      inTransaction: Effect.map(Effect.serviceOption(sql.transactionService), Option.isSome)
    })
  })
)
