import { Effect, Schema } from "effect"
import { EmbeddedPostgresError } from "./embedded-postgres-error.ts"

/** Absolute paths of the PostgreSQL programs built for this platform. */
export interface PostgresBinaries {
  readonly initdb: string
  readonly postgres: string
}

const BinaryPaths = Schema.Struct({ initdb: Schema.String, postgres: Schema.String })

// The embedded-postgres project publishes the official PostgreSQL 18 builds per platform under these names.
const packageName = () => `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`

/** The PostgreSQL binaries installed as this platform's `@embedded-postgres/<platform>` optional dependency. */
export const findBinaries = Effect.fn("EmbeddedPostgres.findBinaries")(function*() {
  const name = packageName()
  const loaded = yield* Effect.tryPromise({
    try: (): Promise<unknown> => import(name),
    catch: (cause) =>
      new EmbeddedPostgresError({ message: `no PostgreSQL binaries for this platform: ${name} is not installed (run npm ci)`, cause })
  })
  const paths: PostgresBinaries = yield* Schema.decodeUnknownEffect(BinaryPaths)(loaded).pipe(
    Effect.mapError((cause) => new EmbeddedPostgresError({ message: `${name} does not name initdb and postgres`, cause }))
  )
  return paths
})
