// A database of its own on the server of `url` (made, then dropped with FORCE), so no other run's rows or schema meet
// the bench's: the shared `test` database also serves the test suites.
import { PostgresUrl } from "@atrium/adapters-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const admin = (url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.runPromise(SqlClient.SqlClient.pipe(Effect.flatMap(statement), Effect.provide(PostgresUrl(Redacted.make(url), { maxConnections: 1 }))))

/** A fresh database named after `purpose` and this process on the server of `url`, and how to drop it. */
export const freshDatabase = async (url: string, purpose: string) => {
  const name = `atrium_${purpose}_bench_${process.pid}`
  await admin(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
  await admin(url, (sql) => sql`CREATE DATABASE ${sql(name)}`)
  const fresh = new URL(url)
  fresh.pathname = `/${name}`
  return { url: fresh.toString(), drop: () => admin(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`) }
}
