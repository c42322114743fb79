import { Duration, Effect, Option, Redacted } from "effect"
import { spawn } from "node:child_process"
import { chown, open, readFile, rm, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { PostgresBinaries } from "./binaries.ts"
import { type ConnectionInfo, newPassword, readConnection, writeConnection } from "./connection-file.ts"
import type { DataLayout } from "./data-layout.ts"
import { EmbeddedPostgresError, failedTo } from "./embedded-postgres-error.ts"
import { freePort } from "./free-port.ts"
import { isAlive, livePostmaster, type Postmaster, readPostmaster } from "./postmaster-pid.ts"
import type { ServerUser } from "./server-user.ts"

/** The cluster's superuser, the only role the embedded default uses. */
export const superuser = "postgres"

/** A server accepting connections for the data directory. */
export interface RunningCluster {
  readonly pid: number
  readonly port: number
  readonly password: Redacted.Redacted<string>
  /** Whether this process started it (rather than finding it running). */
  readonly startedHere: boolean
}

// Nothing beyond loopback, no Unix socket. Sized for one app's embedded database, whose memory counts with the app's:
// small shared buffers; room for the app's pool, a CLI and an operator's psql; one I/O worker instead of three; no
// logical-replication launcher (nothing replicates); no JIT, which loads LLVM into a backend for one big query.
const serverSettings = [
  "listen_addresses=127.0.0.1",
  "unix_socket_directories=",
  "shared_buffers=16MB",
  "max_connections=30",
  "io_workers=1",
  "max_logical_replication_workers=0",
  "jit=off",
  "logging_collector=off"
]

// The servers' environment carries none of ours (DATABASE_URL, keys): only a path and the C locale for messages.
const serverEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" }

const asUser = (user: Option.Option<ServerUser>) => Option.match(user, { onNone: () => ({}), onSome: (u) => ({ uid: u.uid, gid: u.gid }) })

const tail = (text: string) => text.trim().split("\n").slice(-5).join("\n")

const exists = (path: string) => Effect.promise(() => stat(path).then(() => true, () => false))

// Runs `initdb` as the server's account, with the password handed over in a 0600 file that is removed at once.
const initialise = Effect.fn("EmbeddedPostgres.initialise")(function*(
  binaries: PostgresBinaries,
  layout: DataLayout,
  user: Option.Option<ServerUser>,
  password: Redacted.Redacted<string>
) {
  const pwfile = join(layout.root, `.initdb-password-${process.pid}`)
  const run = async () => {
    await writeFile(pwfile, Redacted.value(password), { mode: 0o600, flag: "w" })
    if (Option.isSome(user)) await chown(pwfile, user.value.uid, user.value.gid)
    return new Promise<void>((resolve, reject) => {
      const child = spawn(binaries.initdb, [
        "-D", layout.cluster, "-U", superuser, "--auth=scram-sha-256", `--pwfile=${pwfile}`,
        "-E", "UTF8", "--locale=C", "--no-instructions",
        // One syncfs instead of an fsync per file: the same durability, seconds faster on a busy disk.
        ...(process.platform === "linux" ? ["--sync-method=syncfs"] : [])
      ], { ...asUser(user), env: serverEnv, stdio: ["ignore", "ignore", "pipe"] })
      let errors = ""
      child.stderr.on("data", (chunk: Buffer) => errors += chunk.toString())
      child.once("error", reject)
      child.once("exit", (code) => code === 0 ? resolve() : reject(new Error(`initdb exited with ${code}: ${tail(errors)}`)))
    })
  }
  yield* Effect.tryPromise({ try: run, catch: failedTo(`cannot initialise the database in ${layout.cluster}`) }).pipe(
    Effect.ensuring(Effect.promise(() => rm(pwfile, { force: true })))
  )
})

// Polls `postmaster.pid` until the server says `ready`; fails as soon as `exited` reports the process gone.
const awaitReady = (cluster: string, pid: number, exited: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      const found = yield* readPostmaster(cluster)
      if (Option.isSome(found) && found.value.pid === pid && found.value.ready) return found.value
      if (exited() || !isAlive(pid)) return yield* Effect.fail("exited" as const)
      yield* Effect.sleep(Duration.millis(20))
    }
    return yield* Effect.fail("timeout" as const)
  })

// Starts the server detached (its own process group: a Ctrl-C reaches Atrium, which then stops it in order).
const launch = Effect.fn("EmbeddedPostgres.launch")(function*(
  binaries: PostgresBinaries,
  layout: DataLayout,
  user: Option.Option<ServerUser>,
  port: number
) {
  const child = yield* Effect.tryPromise({
    try: async () => {
      const log = await open(layout.logFile, "a", 0o600)
      try {
        const args = ["-D", layout.cluster, "-p", String(port), ...serverSettings.flatMap((setting) => ["-c", setting])]
        const started = spawn(binaries.postgres, args, { ...asUser(user), env: serverEnv, detached: true, stdio: ["ignore", log.fd, log.fd] })
        started.unref()
        return started
      } finally {
        await log.close()
      }
    },
    catch: failedTo(`cannot start PostgreSQL for ${layout.cluster}`)
  })
  const pid = child.pid ?? 0
  return yield* awaitReady(layout.cluster, pid, () => child.exitCode !== null || child.signalCode !== null).pipe(
    Effect.catch((reason) =>
      Effect.promise(() => readFile(layout.logFile, "utf8").catch(() => "")).pipe(
        Effect.flatMap((log) =>
          Effect.fail(reason === "exited" && /could not bind|Address already in use/.test(tail(log)) ? "port-taken" as const : new EmbeddedPostgresError({
            message: reason === "timeout"
              ? `PostgreSQL did not become ready within a minute (see ${layout.logFile})`
              : `PostgreSQL stopped while starting: ${tail(log)} (full log: ${layout.logFile})`,
            cause: undefined
          }))
        )
      )
    )
  )
})

// A free port, retried when another program takes it between the check and the bind.
const launchOnFreePort = (binaries: PostgresBinaries, layout: DataLayout, user: Option.Option<ServerUser>) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = yield* freePort
      const started = yield* launch(binaries, layout, user, port).pipe(
        Effect.map(Option.some<Postmaster>),
        Effect.catch((error) => error === "port-taken" ? Effect.succeed(Option.none<Postmaster>()) : Effect.fail(error))
      )
      if (Option.isSome(started)) return started.value
    }
    return yield* new EmbeddedPostgresError({ message: "could not bind PostgreSQL to a free loopback port in 5 attempts", cause: undefined })
  })

// The saved password, which a cluster already initialised cannot do without.
const savedPassword = (layout: DataLayout, saved: Option.Option<ConnectionInfo>) =>
  Option.match(saved, {
    onSome: (info) => Effect.succeed(info.password),
    onNone: () =>
      Effect.fail(
        new EmbeddedPostgresError({
          message: `${layout.connectionFile} is missing, so the database in ${layout.cluster} cannot be opened: restore it from a backup`,
          cause: undefined
        })
      )
  })

/**
 * The server for the data directory: the one already running (found through `postmaster.pid`, waiting for it to be
 * ready), or a new one — after `initdb` on first use — on a free loopback port. Call it under the start lock.
 */
export const ensureRunning = Effect.fn("EmbeddedPostgres.ensureRunning")(function*(
  binaries: PostgresBinaries,
  layout: DataLayout,
  user: Option.Option<ServerUser>
) {
  const saved = yield* readConnection(layout.connectionFile)
  const live = yield* livePostmaster(layout.cluster)
  if (Option.isSome(live)) {
    const password = yield* savedPassword(layout, saved)
    const ready = yield* awaitReady(layout.cluster, live.value.pid, () => false).pipe(
      Effect.mapError(() => new EmbeddedPostgresError({ message: `the PostgreSQL server already running for ${layout.cluster} did not become ready`, cause: undefined }))
    )
    return { pid: ready.pid, port: ready.port, password, startedHere: false } satisfies RunningCluster
  }
  const initialised = yield* exists(join(layout.cluster, "PG_VERSION"))
  const password = initialised ? yield* savedPassword(layout, saved) : newPassword()
  if (!initialised) {
    // Saved first: a crash after initdb must not leave a cluster whose password nobody knows.
    yield* writeConnection(layout.connectionFile, { port: 0, password })
    yield* initialise(binaries, layout, user, password)
  }
  const started = yield* launchOnFreePort(binaries, layout, user)
  yield* writeConnection(layout.connectionFile, { port: started.port, password })
  return { pid: started.pid, port: started.port, password, startedHere: true } satisfies RunningCluster
})

/** Fast shutdown (SIGINT: sessions end, a checkpoint is written) and waits until the process is gone. */
export const stopServer = Effect.fn("EmbeddedPostgres.stopServer")(function*(pid: number) {
  yield* Effect.sync(() => {
    try {
      process.kill(pid, "SIGINT")
    } catch {
      // Already gone.
    }
  })
  const deadline = Date.now() + 30_000
  while (isAlive(pid) && Date.now() < deadline) yield* Effect.sleep(Duration.millis(20))
})
