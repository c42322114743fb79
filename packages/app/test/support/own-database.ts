// A database of its own on DATABASE_URL's server, for a test whose server must not share rows (or workers) with
// another test's server; none without DATABASE_URL (the test then runs on the embedded server).
import { PostgresUrl } from "@atrium/adapters-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** The admin URL, the own database's URL and its name, named after `label` and a random suffix. */
export const ownDatabaseOf = (label: string) => {
  const base = process.env.DATABASE_URL
  if (base === undefined || base.length === 0) return undefined
  const url = new URL(base)
  const name = `${url.pathname.slice(1) || "postgres"}_${label}_${Math.random().toString(36).slice(2, 10)}`
  const own = new URL(url.href)
  own.pathname = `/${name}`
  return { adminUrl: url.href, url: own.href, name }
}

/** Runs one statement (CREATE or DROP DATABASE), which may take longer than a request's bounds on a busy machine. */
export const runSql = (url: string, statement: string) =>
  Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient
    yield* sql.unsafe(statement)
  }).pipe(Effect.provide(PostgresUrl(Redacted.make(url), { statementTimeout: 0, queryTimeout: "2 minutes" }))))
