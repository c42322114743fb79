import * as PgClient from "@effect/sql-pg/PgClient"
import { Duration, Effect, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { makeAnsweringPgClient } from "../answering-pg-client.ts"
import { poolSettings, type PostgresUrlOptions, queryTimeoutOf } from "../postgres-url.ts"
import { findBinaries, reachableBinaries } from "./binaries.ts"
import { dataLayout, type DataLayout, prepareLayout } from "./data-layout.ts"
import type { EmbeddedPostgresError } from "./embedded-postgres-error.ts"
import { isAlive, livePostmaster } from "./postmaster-pid.ts"
import { ensureRunning, type RunningCluster, stopServer, superuser } from "./postgres-server.ts"
import { serverUser } from "./server-user.ts"
import { startLock } from "./start-lock.ts"
import { ensureWatchdog, registerUser, unregisterUser } from "./watchdog.ts"

/** Where the embedded server keeps its data, and the pool's tuning (the same as for `DATABASE_URL`). */
export interface EmbeddedPostgresOptions extends Omit<PostgresUrlOptions, "schema"> {
  readonly dataDir: string
}

const host = "127.0.0.1"

/**
 * The embedded default's pool: each connection is a PostgreSQL backend of its own (4 to 8 MB PSS, 20 MB RSS under
 * load) on the same machine as the app, whose cores it shares; a few keep those cores busy. One of the three is the
 * workers' LISTEN connection, so two run queries (as many as when each worker listened on one of four).
 */
const embeddedMaxConnections = 3

// Every user of the server names its connections `atrium-<pid>-<n>`, so the last one out can tell whether anyone else
// is still using it; the users of this process that are still open are listed here.
let users = 0
const openUsers = new Set<string>()
const userName = /^atrium-(\d+)-\d+$/

// The last of this process's users to go takes its mark away.
const releaseUser = (layout: DataLayout, applicationName: string) =>
  Effect.suspend(() => {
    openUsers.delete(applicationName)
    return openUsers.size === 0 ? unregisterUser(layout) : Effect.void
  })

// A connection still counts while its owner lives: an exiting backend of a process (or user) already gone does not.
const stillUsed = (name: string) => {
  const owner = userName.exec(name)
  if (owner === null) return true
  const pid = Number(owner[1])
  return pid === process.pid ? openUsers.has(name) : isAlive(pid)
}

// The server keeps running while any other client is connected (a server beside a CLI, an operator's psql).
const othersConnected = (client: PgClient.PgClient, applicationName: string) =>
  client<{ readonly name: string }>`
    SELECT application_name AS name FROM pg_stat_activity
    WHERE backend_type = 'client backend' AND application_name <> ${applicationName}
  `.pipe(
    Effect.map((rows) => rows.some((row) => stillUsed(row.name))),
    Effect.timeout(Duration.seconds(2))
  )

/**
 * A real PostgreSQL 18 server (the official binaries of the `@embedded-postgres/<platform>` package) for the data
 * directory, reached through the same `@effect/sql-pg` pool as `DATABASE_URL`. The first use runs `initdb`; later
 * ones start the server on a free loopback port, or join the one already running for the directory (another
 * Atrium process, a CLI beside a server). On release the last process still connected stops it.
 */
export const EmbeddedPostgres = (
  options: EmbeddedPostgresOptions
): Layer.Layer<PgClient.PgClient | SqlClient, SqlError | EmbeddedPostgresError> =>
  PgClient.layerFrom(
    Effect.gen(function*() {
      const layout = dataLayout(options.dataDir)
      const user = yield* serverUser
      const binaries = yield* reachableBinaries(yield* findBinaries(), user)
      yield* prepareLayout(layout, user)
      const applicationName = `atrium-${process.pid}-${++users}`
      // Registered under the start lock, before the server is found or started: the watchdog never stops it under us.
      const cluster: RunningCluster = yield* Effect.acquireRelease(
        Effect.scoped(Effect.gen(function*() {
          yield* startLock(layout.lockFile)
          openUsers.add(applicationName)
          yield* registerUser(layout)
          const running = yield* ensureRunning(binaries, layout, user)
          yield* ensureWatchdog(layout, running.pid)
          return running
        })).pipe(Effect.onError(() => releaseUser(layout, applicationName))),
        () => releaseUser(layout, applicationName)
      )
      const client = yield* makeAnsweringPgClient({
        ...poolSettings({ ...options, maxConnections: options.maxConnections ?? embeddedMaxConnections }),
        // One connection held open marks this process as a user of the server, so another never stops it under us.
        minConnections: 1,
        host,
        port: cluster.port,
        username: superuser,
        password: cluster.password,
        database: "postgres",
        applicationName
      }, queryTimeoutOf(options))
      // Registered after the pool, so it runs while the pool is still open.
      yield* Effect.addFinalizer(() =>
        Effect.scoped(Effect.gen(function*() {
          yield* startLock(layout.lockFile)
          const busy = yield* othersConnected(client, applicationName).pipe(Effect.orElseSucceed(() => !cluster.startedHere))
          if (busy) return
          const live = yield* livePostmaster(layout.cluster)
          if (Option.isSome(live)) yield* stopServer(live.value.pid)
        })).pipe(Effect.ignore)
      )
      return client
    })
  )
