import * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, type Layer, Option, Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { makeAnsweringPgClient } from "./answering-pg-client.ts"

/** Tuning for a real server; the defaults suit one app process. */
export interface PostgresUrlOptions {
  readonly maxConnections?: number | undefined
  /** Schema searched first (`search_path`), e.g. to isolate test runs; the URL's database default otherwise. */
  readonly schema?: string | undefined
  /** Longest a single statement may run before the server cancels it (default 10 seconds; `0` for no limit). */
  readonly statementTimeout?: Duration.Input | undefined
  /** Longest a new connection may take to open and authenticate (default 3 seconds). */
  readonly connectTimeout?: Duration.Input | undefined
  /**
   * Longest the app waits for a statement's answer, its wait for a pooled connection included, and for each step of a
   * transaction (default 5 seconds): past it the call fails as `Unavailable`, even when the server is frozen.
   */
  readonly queryTimeout?: Duration.Input | undefined
}

/** The default `statement_timeout`: far above any healthy query here, far below a client giving up. */
export const defaultStatementTimeout = Duration.seconds(10)

/** The default query timeout: a frozen server answers 503 within it, as the whole request did before. */
export const defaultQueryTimeout = Duration.seconds(5)

/** The query timeout of `options`; an unreadable input keeps the default. */
export const queryTimeoutOf = (options: PostgresUrlOptions): Duration.Duration =>
  Option.getOrElse(Option.fromNullishOr(options.queryTimeout).pipe(Option.flatMap(Duration.fromInput)), () => defaultQueryTimeout)

/** The default connect timeout: a healthy local or LAN server answers in milliseconds; a frozen one never does. */
export const defaultConnectTimeout = Duration.seconds(3)

// Whole milliseconds, the unit Postgres reads a bare `statement_timeout` number in; an unreadable input keeps the default.
const statementTimeoutMillis = (input: Duration.Input | undefined): string =>
  String(Math.max(0, Math.round(Duration.toMillis(Option.getOrElse(Option.fromNullishOr(input).pipe(Option.flatMap(Duration.fromInput)), () => defaultStatementTimeout)))))

/**
 * Pool settings shared by `DATABASE_URL` and the embedded server: a bounded connect, a `statement_timeout` on every
 * connection (a stuck statement is cancelled by the server with `query_canceled`, reported as `Unavailable`), and TCP
 * keep-alive to notice a peer that vanished under an idle connection.
 */
export const poolSettings = (options: PostgresUrlOptions): PgClient.PgPoolConfig => ({
  maxConnections: options.maxConnections ?? 10,
  connectTimeout: options.connectTimeout ?? defaultConnectTimeout,
  keepAlive: "30 seconds",
  startupParameters: {
    statement_timeout: statementTimeoutMillis(options.statementTimeout),
    ...(options.schema === undefined ? {} : { search_path: options.schema })
  }
})

/**
 * A connection pool to a real Postgres server at `url` (e.g. `DATABASE_URL`). It connects lazily, so the app starts
 * while the server is down; a connection attempt gives up after 3 seconds (or the URL's `connect_timeout`), a statement
 * after the query timeout.
 */
export const PostgresUrl = (
  url: Redacted.Redacted<string>,
  options: PostgresUrlOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient, SqlError> => {
  const settings = poolSettings(options)
  return PgClient.layerFrom(makeAnsweringPgClient({
    ...settings,
    // A `connect_timeout` in the URL wins over the default (an explicit option wins over both).
    connectTimeout: options.connectTimeout === undefined && urlSetsConnectTimeout(url) ? undefined : settings.connectTimeout,
    url,
    applicationName: "atrium"
  }, queryTimeoutOf(options)))
}

const urlSetsConnectTimeout = (url: Redacted.Redacted<string>) =>
  URL.canParse(Redacted.value(url)) && new URL(Redacted.value(url)).searchParams.has("connect_timeout")
