import * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, type Layer, Option, type Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** Tuning for a real server; the defaults suit one app process. */
export interface PostgresUrlOptions {
  readonly maxConnections?: number | undefined
  /** Schema searched first (`search_path`), e.g. to isolate test runs; the URL's database default otherwise. */
  readonly schema?: string | undefined
  /** Longest a single statement may run before the server cancels it (default 10 seconds; `0` for no limit). */
  readonly statementTimeout?: Duration.Input | undefined
}

/** The default `statement_timeout`: far above any healthy query here, far below a client giving up. */
export const defaultStatementTimeout = Duration.seconds(10)

// Whole milliseconds, the unit Postgres reads a bare `statement_timeout` number in; an unreadable input keeps the default.
const statementTimeoutMillis = (input: Duration.Input | undefined): string =>
  String(Math.max(0, Math.round(Duration.toMillis(Option.getOrElse(Option.fromNullishOr(input).pipe(Option.flatMap(Duration.fromInput)), () => defaultStatementTimeout)))))

/**
 * A connection pool to a real Postgres server at `url` (e.g. `DATABASE_URL`). It connects lazily, so the app starts
 * while the server is down; a connection attempt gives up after 5 seconds (sql-pg's default, or the URL's `connect_timeout`).
 * Every connection starts with a `statement_timeout`, so a stuck statement (a lock that never frees, a server
 * grinding) is cancelled by the server with `query_canceled` (57014), which the repositories report as `Unavailable`
 * rather than holding a request open forever.
 */
export const PostgresUrl = (
  url: Redacted.Redacted<string>,
  options: PostgresUrlOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient, SqlError> =>
  PgClient.layer({
    url,
    maxConnections: options.maxConnections ?? 10,
    applicationName: "atrium",
    // Notices a peer that vanished (host down, network cut) on an idle pooled connection.
    keepAlive: "30 seconds",
    startupParameters: {
      statement_timeout: statementTimeoutMillis(options.statementTimeout),
      ...(options.schema === undefined ? {} : { search_path: options.schema })
    }
  })
