import * as PgClient from "@effect/sql-pg/PgClient"
import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Primitives, SecretBox } from "@atrium/domain"
import { Effect, Layer, type Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { EmbeddedPostgres, type EmbeddedPostgresError, type EmbeddedPostgresOptions } from "./embedded/index.ts"
import { layerPorts } from "./layers.ts"
import { PostgresUrl, type PostgresUrlOptions } from "./postgres-url.ts"

/** The migrations' secret box and digest for a test database: a fresh random key, no pepper. */
export const TestMigrationServices = Layer.mergeAll(SecretBox.layerMemory, Primitives.layer)

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
        // Retried: the server's watchdog may write its lock file there for a moment after the server stopped.
        (made) => Effect.promise(() => rm(made, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))
      )
      return EmbeddedPostgres({ ...options, dataDir: join(dir, "data") })
    })
  )

/**
 * The process ids of the embedded server of `dataDir`: the postmaster, then every process it forked (backends and
 * writers, each in a session of its own), read from /proc (Linux). Tests signal them to crash or freeze the database.
 */
export const embeddedServerProcesses = (dataDir: string): ReadonlyArray<number> => {
  const postmaster = Number.parseInt(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10)
  const parentOf = (pid: string) => {
    const stat = readProcStat(pid)
    // Field 4 is the parent; the process name before it may contain spaces, so count from the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]
  }
  const children = readdirSync("/proc").filter((name) => /^\d+$/.test(name) && parentOf(name) === String(postmaster))
  return [postmaster, ...children.map(Number)]
}

const readProcStat = (pid: string): string => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    // The process ended while the list was read.
    return ""
  }
}

/** `layerPorts` over a test database, its migrations given `TestMigrationServices`. */
export const layerTestPorts = <E>(client: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, E>) =>
  layerPorts(client).pipe(Layer.provide(TestMigrationServices))
