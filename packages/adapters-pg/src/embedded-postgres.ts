import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Schema } from "effect"
import { mkdir } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** Where the embedded database lives: a directory to persist it in, or nothing for an in-memory database. */
export interface EmbeddedPostgresOptions {
  readonly dataDir?: string | undefined
}

/** PGlite could not start or serve (e.g. its data directory cannot be created or read). */
export class EmbeddedPostgresError extends Schema.TaggedError<EmbeddedPostgresError>()("EmbeddedPostgresError", {
  message: Schema.String,
  cause: Schema.Defect()
}) {}

const host = "127.0.0.1"

// PGlite's defaults plus a 16 MB buffer pool: an embedded single-user database needs no more, and it saves ~130 MB RSS.
const pgliteOptions = { startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"] }

// PGlite creates its data directory but not the parents (e.g. `.atrium/data`).
const ensureParent = async (dataDir: string): Promise<string> => {
  await mkdir(dirname(resolve(dataDir)), { recursive: true })
  return dataDir
}

const startFailed = (message: string) => (cause: unknown) => new EmbeddedPostgresError({ message, cause })

// The server reports `host:port` once listening; with port 0 that is where the ephemeral port shows.
const boundPort = (server: PGLiteSocketServer): Effect.Effect<number, EmbeddedPostgresError> => {
  const port = Number(server.getServerConn().split(":").at(-1))
  return Number.isInteger(port) && port > 0
    ? Effect.succeed(port)
    : Effect.fail(new EmbeddedPostgresError({ message: `unexpected server address ${server.getServerConn()}`, cause: undefined }))
}

/**
 * Postgres compiled to WASM (PGlite), served in-process over the wire protocol on an ephemeral loopback
 * port and reached through the ordinary `@effect/sql-pg` client, so the repositories cannot tell it from a
 * real server. Closing the layer closes the client, then stops the server, then closes PGlite (flushing
 * the data directory).
 */
export const EmbeddedPostgres = (
  options: EmbeddedPostgresOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient, SqlError | EmbeddedPostgresError> =>
  PgClient.layerFrom(
    Effect.gen(function*() {
      const dataDir = options.dataDir
      const db = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => dataDir === undefined ? PGlite.create(pgliteOptions) : PGlite.create(await ensureParent(dataDir), pgliteOptions),
          catch: startFailed(`could not open the embedded database${dataDir === undefined ? "" : ` in ${dataDir}`}`)
        }),
        (db) => Effect.promise(() => db.close())
      )
      // One connection: PGlite is a single session, and another connection's statements would land in our transactions.
      const server = new PGLiteSocketServer({ db, host, port: 0, maxConnections: 1 })
      yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => server.start(), catch: startFailed("could not serve the embedded database") }),
        () => Effect.promise(() => server.stop())
      )
      const port = yield* boundPort(server)
      return yield* PgClient.make({
        host,
        port,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        applicationName: "atrium-embedded"
      })
    })
  )
