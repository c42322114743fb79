import * as PgClient from "@effect/sql-pg/PgClient"
import { randomBytes } from "node:crypto"
import { Effect, Layer, type Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { PostgresUrl, type PostgresUrlOptions } from "./postgres-url.ts"

/**
 * A client for a real server confined to a fresh schema `atrium_test_<random>`, dropped when the layer
 * closes: test runs can share one database, in parallel and again and again, without seeing each other.
 */
export const PostgresTestSchema = (
  url: Redacted.Redacted<string>,
  options: Omit<PostgresUrlOptions, "schema"> = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const schema = `atrium_test_${randomBytes(8).toString("hex")}`
      // A short-lived client of its own, so the schema outlives nothing but itself.
      const admin = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>) =>
        SqlClient.SqlClient.pipe(Effect.flatMap(statement), Effect.provide(PgClient.layer({ url, maxConnections: 1 })))
      yield* Effect.acquireRelease(
        admin((sql) => sql`CREATE SCHEMA ${sql(schema)}`),
        () => admin((sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`).pipe(Effect.ignore)
      )
      return PostgresUrl(url, { maxConnections: 4, ...options, schema })
    })
  )
