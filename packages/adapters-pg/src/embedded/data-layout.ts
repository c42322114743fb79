import { Effect, Option } from "effect"
import { chmod, chown, mkdir, stat } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { EmbeddedPostgresError, failedTo } from "./embedded-postgres-error.ts"
import type { ServerUser } from "./server-user.ts"

/** Where the embedded server keeps its files inside `ATRIUM_DATA_DIR`. */
export interface DataLayout {
  readonly root: string
  /** The PostgreSQL cluster (`PGDATA`), owned by the account the server runs as. */
  readonly cluster: string
  /** Port and credentials of the cluster (mode 0600). */
  readonly connectionFile: string
  /** The server's own log (startup, crashes, warnings). */
  readonly logFile: string
  /** Held while one process initialises or starts the cluster. */
  readonly lockFile: string
  /** One empty file per Atrium process using the server, named by its pid: the watchdog stops the server once none lives. */
  readonly usersDir: string
  /** The pid of the watchdog of the running server. */
  readonly watchdogFile: string
}

/** The layout under `dataDir`. */
export const dataLayout = (dataDir: string): DataLayout => {
  const root = resolve(dataDir)
  return {
    root,
    cluster: join(root, "postgres"),
    connectionFile: join(root, "postgres.json"),
    logFile: join(root, "postgres.log"),
    lockFile: join(root, "postgres.lock"),
    usersDir: join(root, "postgres.users"),
    watchdogFile: join(root, "postgres.watchdog")
  }
}

const exists = (path: string) => Effect.promise(() => stat(path).then(() => true, () => false))

/** The account can pass through `dir` with its own uid and primary gid (spawned servers get no supplementary groups). */
export const canSearch = (info: { readonly uid: number; readonly gid: number; readonly mode: number }, user: ServerUser) =>
  info.uid === user.uid ? (info.mode & 0o100) !== 0 : info.gid === user.gid ? (info.mode & 0o010) !== 0 : (info.mode & 0o001) !== 0

/** The folders above `path`, outermost first. */
export const ancestorsOf = (path: string): ReadonlyArray<string> => {
  const parent = dirname(path)
  return parent === path ? [] : [...ancestorsOf(parent), parent]
}

// Names the first folder above the cluster that the server's account cannot pass through.
const checkReachable = Effect.fn("EmbeddedPostgres.checkReachable")(function*(layout: DataLayout, user: ServerUser) {
  for (const dir of ancestorsOf(layout.cluster)) {
    const info = yield* Effect.tryPromise({ try: () => stat(dir), catch: failedTo(`cannot read ${dir}`) })
    if (!canSearch(info, user)) {
      return yield* new EmbeddedPostgresError({
        message: `PostgreSQL runs as the \`postgres\` OS user (Atrium runs as root), which cannot reach ${dir}: ` +
          `let it pass through (chmod o+x ${dir}) or choose an ATRIUM_DATA_DIR it can reach`,
        cause: undefined
      })
    }
  }
})

/**
 * Creates the data directory and the cluster folder. As root the cluster folder belongs to the `postgres` account
 * (initdb cannot create it inside a root-owned folder) and the data directory lets it pass (0711) without listing it.
 * A data directory of the earlier PGlite default is refused rather than silently replaced by an empty database.
 */
export const prepareLayout = Effect.fn("EmbeddedPostgres.prepareLayout")(function*(layout: DataLayout, user: Option.Option<ServerUser>) {
  if (yield* exists(join(layout.root, "PG_VERSION"))) {
    return yield* new EmbeddedPostgresError({
      message: `${layout.root} holds a database of an earlier Atrium version (embedded PGlite), which this version cannot open: ` +
        "move it away (or point ATRIUM_DATA_DIR elsewhere) to start with a new database",
      cause: undefined
    })
  }
  const createdParents = yield* Effect.tryPromise({
    try: async () => {
      const firstCreated = await mkdir(dirname(layout.root), { recursive: true })
      await mkdir(layout.root, { recursive: true, mode: 0o700 })
      await mkdir(layout.cluster, { recursive: false, mode: 0o700 }).catch((error: NodeJS.ErrnoException) =>
        error.code === "EEXIST" ? undefined : Promise.reject(error)
      )
      return firstCreated === undefined ? [] : [firstCreated, ...ancestorsOf(dirname(layout.root)).filter((dir) => dir.startsWith(`${firstCreated}/`)), dirname(layout.root)]
    },
    catch: failedTo(`cannot create the data directory ${layout.root}`)
  })
  if (Option.isNone(user)) return
  const { gid, uid } = user.value
  yield* Effect.tryPromise({
    try: async () => {
      // Folders created here on the way to the data directory let the server's account pass, whatever the umask.
      for (const dir of new Set(createdParents)) await chmod(dir, ((await stat(dir)).mode & 0o7777) | 0o111)
      const root = await stat(layout.root)
      if ((root.mode & 0o711) !== 0o711) await chmod(layout.root, (root.mode & 0o7777) | 0o711)
      await chown(layout.cluster, uid, gid)
      await chmod(layout.cluster, 0o700)
    },
    catch: failedTo(`cannot give the \`postgres\` OS user its folder ${layout.cluster}`)
  })
  yield* checkReachable(layout, user.value)
})
