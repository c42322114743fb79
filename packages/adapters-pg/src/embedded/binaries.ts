import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { chmod, cp, readdir, rename, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { ancestorsOf, canSearch } from "./data-layout.ts"
import { EmbeddedPostgresError } from "./embedded-postgres-error.ts"
import type { ServerUser } from "./server-user.ts"

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

/**
 * Binaries the server's account can run. As root the server runs as `postgres`, which may not pass through the folder
 * the project sits in (a private checkout, a 0700 temp folder): then the build is copied once, readable by everyone,
 * to a folder of its own under the system temp folder, keyed by where it came from and when it was installed.
 */
export const reachableBinaries = Effect.fn("EmbeddedPostgres.reachableBinaries")(function*(binaries: PostgresBinaries, user: Option.Option<ServerUser>) {
  if (Option.isNone(user)) return binaries
  const build = dirname(dirname(binaries.initdb))
  const blocked = yield* Effect.promise(async () => {
    for (const dir of [...ancestorsOf(binaries.initdb)]) {
      if (!canSearch(await stat(dir), user.value)) return true
    }
    return false
  })
  if (!blocked) return binaries
  const installed = yield* Effect.promise(() => stat(build))
  const key = createHash("sha256").update(`${build}:${installed.mtimeMs}`).digest("hex").slice(0, 16)
  const copy = join(tmpdir(), `atrium-postgres-${key}`)
  const relocated = (path: string) => join(copy, relative(build, path))
  yield* Effect.tryPromise({
    try: async () => {
      if (await stat(copy).then(() => true, () => false)) return
      const staging = `${copy}.${process.pid}`
      await cp(build, staging, { recursive: true, verbatimSymlinks: true })
      await chmodTree(staging)
      // Another process may have finished first; either copy is the same build.
      await rename(staging, copy).catch(() => rm(staging, { recursive: true, force: true }))
    },
    catch: (cause) => new EmbeddedPostgresError({ message: `could not copy the PostgreSQL binaries to ${copy} for the postgres account`, cause })
  })
  return { initdb: relocated(binaries.initdb), postgres: relocated(binaries.postgres) }
})

// Folders searchable and files readable by everyone, executables runnable by everyone; links are left as they are.
const chmodTree = async (dir: string): Promise<void> => {
  await chmod(dir, 0o755)
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) await chmodTree(path)
    else if (entry.isFile()) await chmod(path, ((await stat(path)).mode & 0o111) !== 0 ? 0o755 : 0o644)
  }
}
