import * as PgClient from "@effect/sql-pg/PgClient"
import { randomBytes } from "node:crypto"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, type Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { EmbeddedPostgres, type EmbeddedPostgresError, type EmbeddedPostgresOptions } from "./embedded/index.ts"
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

/**
 * A real embedded PostgreSQL server in a fresh temporary folder (traversable by the `postgres` account when tests
 * run as root), stopped and deleted when the layer closes.
 */
export const EmbeddedPostgresTemp = (
  options: Omit<EmbeddedPostgresOptions, "dataDir"> = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError | EmbeddedPostgresError> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const made = await mkdtemp(join(tmpdir(), "atrium-pg-"))
          await chmod(made, 0o711)
          return made
        }),
        (made) => Effect.promise(() => rm(made, { recursive: true, force: true }))
      )
      return EmbeddedPostgres({ ...options, dataDir: join(dir, "data") })
    })
  )
