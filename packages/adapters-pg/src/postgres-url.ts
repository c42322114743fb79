import * as PgClient from "@effect/sql-pg/PgClient"
import type { Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** Tuning for a real server; the defaults suit one app process. */
export interface PostgresUrlOptions {
  readonly maxConnections?: number | undefined
  /** Schema searched first (`search_path`), e.g. to isolate test runs; the URL's database default otherwise. */
  readonly schema?: string | undefined
}

/**
 * A connection pool to a real Postgres server at `url` (e.g. `DATABASE_URL`). It connects lazily, so the app starts
 * while the server is down; a connection attempt gives up after 5 seconds (sql-pg's default, or the URL's `connect_timeout`).
 */
export const PostgresUrl = (
  url: Redacted.Redacted<string>,
  options: PostgresUrlOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient, SqlError> =>
  PgClient.layer({
    url,
    maxConnections: options.maxConnections ?? 10,
    applicationName: "atrium",
    ...(options.schema === undefined ? {} : { startupParameters: { search_path: options.schema } })
  })
