import { Effect, Option } from "effect"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { EmbeddedPostgresError } from "./embedded-postgres-error.ts"

/** The OS account the PostgreSQL processes run under. */
export interface ServerUser {
  readonly uid: number
  readonly gid: number
}

const run = promisify(execFile)

const idOf = (flag: "-u" | "-g") =>
  Effect.tryPromise({
    try: () => run("id", [flag, "postgres"]),
    catch: (cause) =>
      new EmbeddedPostgresError({
        message: "running as root, but there is no `postgres` OS user for PostgreSQL to run as (it refuses root): " +
          "create one (e.g. `useradd --system --user-group postgres`) or run Atrium as an ordinary user",
        cause
      })
  }).pipe(Effect.map(({ stdout }) => Number.parseInt(stdout.trim(), 10)))

/**
 * `None` when we are an ordinary user (PostgreSQL runs as us); the `postgres` account when we are root, since
 * PostgreSQL refuses to run as root.
 */
export const serverUser: Effect.Effect<Option.Option<ServerUser>, EmbeddedPostgresError> = Effect.suspend(() =>
  process.getuid?.() === 0
    ? Effect.all({ uid: idOf("-u"), gid: idOf("-g") }).pipe(Effect.map(Option.some))
    : Effect.succeed(Option.none())
)
