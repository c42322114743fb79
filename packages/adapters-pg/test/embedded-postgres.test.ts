import { WorkspaceRepository } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EmbeddedPostgres, layerEmbedded } from "../src/index.ts"
import { makeWorkspace } from "./fixtures.ts"
import { isAlive } from "../src/embedded/postmaster-pid.ts"
import { embeddedServerProcesses, TestMigrationServices } from "../src/testing.ts"
import { tempDataDir } from "./temp-data-dir.ts"

const pidFile = (dataDir: string) => join(dataDir, "postgres", "postmaster.pid")
const postmasterPid = (dataDir: string) => Number.parseInt(readFileSync(pidFile(dataDir), "utf8").split("\n")[0] ?? "", 10)

const insert = (dataDir: string, workspace: ReturnType<typeof makeWorkspace>) =>
  WorkspaceRepository.pipe(Effect.flatMap((repo) => repo.insert(workspace)), Effect.provide(layerEmbedded({ dataDir }).pipe(Layer.provide(TestMigrationServices))))
const find = (dataDir: string, workspace: ReturnType<typeof makeWorkspace>) =>
  WorkspaceRepository.pipe(Effect.flatMap((repo) => repo.findById(workspace.id)), Effect.provide(layerEmbedded({ dataDir }).pipe(Layer.provide(TestMigrationServices))))

const asRoot = process.getuid?.() === 0
const postgresUid = asRoot ? Number(execFileSync("id", ["-u", "postgres"]).toString().trim()) : process.getuid?.()

describe("the embedded PostgreSQL server", () => {
  it.live("persists in its data directory across restarts, and is stopped when the last user closes", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDataDir
      const workspace = makeWorkspace()
      // Each provide starts the server (initdb the first time), migrates, and stops it when done.
      yield* insert(dataDir, workspace)
      assert.isFalse(existsSync(pidFile(dataDir)), "stopped after the only user closed")
      assert.deepStrictEqual(yield* find(dataDir, workspace), Option.some(workspace))
      assert.isFalse(existsSync(pidFile(dataDir)))
    }), 60_000)

  it.live("keeps credentials and port in a 0600 file, listens on 127.0.0.1 only, and runs as the right OS user", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDataDir
      const settings = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ listen: string; sockets: string; version: string }>`
          SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets,
                 current_setting('server_version_num') AS version`
      }).pipe(Effect.provide(EmbeddedPostgres({ dataDir })))
      assert.deepStrictEqual(settings[0]?.listen, "127.0.0.1")
      assert.deepStrictEqual(settings[0]?.sockets, "")
      assert.isTrue((settings[0]?.version ?? "").startsWith("18"))
      const connection = join(dataDir, "postgres.json")
      assert.strictEqual(statSync(connection).mode & 0o777, 0o600)
      const saved: { port: number; password: string } = JSON.parse(readFileSync(connection, "utf8"))
      assert.isAbove(saved.port, 0)
      assert.isAtLeast(saved.password.length, 24)
      // As root the cluster belongs to the `postgres` account (initdb could not write a root-owned folder).
      const cluster = statSync(join(dataDir, "postgres"))
      assert.strictEqual(cluster.uid, postgresUid)
      assert.strictEqual(cluster.mode & 0o777, 0o700)
    }), 60_000)

  it.live("is sized for one app: small buffers, one I/O worker, no JIT, no replication launcher, a pool of three", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDataDir
      const found = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // Eight statements at once: the pool opens at most its three connections for them.
        yield* Effect.all(Array.from({ length: 8 }, () => sql`SELECT pg_sleep(0.05)`), { concurrency: "unbounded" })
        const [settings] = yield* sql<{ buffers: string; io: string; jit: string; replication: string }>`
          SELECT current_setting('shared_buffers') AS buffers, current_setting('io_workers') AS io,
                 current_setting('jit') AS jit, current_setting('max_logical_replication_workers') AS replication`
        const [clients] = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM pg_stat_activity WHERE backend_type = 'client backend' AND application_name LIKE 'atrium-%'`
        const [launchers] = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM pg_stat_activity WHERE backend_type = 'logical replication launcher'`
        return { settings, clients: clients?.count, launchers: launchers?.count }
      }).pipe(Effect.provide(EmbeddedPostgres({ dataDir })))
      assert.deepStrictEqual(found.settings, { buffers: "16MB", io: "1", jit: "off", replication: "0" })
      assert.strictEqual(found.clients, 3)
      assert.strictEqual(found.launchers, 0)
    }), 60_000)

  it.live("is joined, not started twice, by a second process-like user, and outlives the first one's close", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDataDir
      const workspace = makeWorkspace()
      yield* Effect.gen(function*() {
        const first = yield* Layer.build(layerEmbedded({ dataDir }).pipe(Layer.provide(TestMigrationServices)))
        const pid = postmasterPid(dataDir)
        yield* Effect.scoped(Effect.gen(function*() {
          const second = yield* Layer.build(layerEmbedded({ dataDir }).pipe(Layer.provide(TestMigrationServices)))
          assert.strictEqual(postmasterPid(dataDir), pid, "the running server was joined")
          yield* WorkspaceRepository.pipe(Effect.flatMap((repo) => repo.insert(workspace)), Effect.provide(second))
        }))
        // The second user closed while the first is still connected: the server keeps running for it.
        assert.strictEqual(postmasterPid(dataDir), pid)
        const found = yield* WorkspaceRepository.pipe(Effect.flatMap((repo) => repo.findById(workspace.id)), Effect.provide(first))
        assert.deepStrictEqual(found, Option.some(workspace))
      }).pipe(Effect.scoped)
      assert.isFalse(existsSync(pidFile(dataDir)))
    }), 60_000)

  it.live("recovers after a crash that left postmaster.pid behind", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDataDir
      const workspace = makeWorkspace()
      const left = yield* Effect.gen(function*() {
        const ports = yield* Layer.build(layerEmbedded({ dataDir }).pipe(Layer.provide(TestMigrationServices)))
        yield* WorkspaceRepository.pipe(Effect.flatMap((repo) => repo.insert(workspace)), Effect.provide(ports))
        // The server dies at once with all its processes (`kill -9`, a power cut), leaving its pid file.
        const left = readFileSync(pidFile(dataDir), "utf8")
        for (const pid of embeddedServerProcesses(dataDir)) process.kill(pid, "SIGKILL")
        // Until this process reaped the postmaster it spawned: the liveness the next start judges the pid file by.
        const postmaster = postmasterPid(dataDir)
        yield* Effect.sync(() => isAlive(postmaster)).pipe(Effect.repeat({ while: (alive) => alive, schedule: Schedule.spaced("5 millis") }))
        return left
      }).pipe(Effect.scoped)
      // What the crash left behind: a pid file naming a process that is gone.
      writeFileSync(pidFile(dataDir), left)
      assert.deepStrictEqual(yield* find(dataDir, workspace), Option.some(workspace))
      // A pid file naming a live process that is not PostgreSQL (the id reused after a reboot) is stale too.
      writeFileSync(pidFile(dataDir), [String(process.pid), ...left.split("\n").slice(1)].join("\n"))
      assert.deepStrictEqual(yield* find(dataDir, workspace), Option.some(workspace))
    }), 60_000)

  it.live("names the folder the postgres account cannot pass through, when run as root", () =>
    Effect.gen(function*() {
      // mkdtemp makes a 0700 folder: the `postgres` account cannot enter it.
      const closed = mkdtempSync(join(tmpdir(), "atrium-closed-"))
      const result = yield* find(join(closed, "data"), makeWorkspace()).pipe(Effect.result, Effect.ensuring(Effect.sync(() => rmSync(closed, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))))
      if (asRoot) {
        assert.isTrue(result._tag === "Failure" && result.failure._tag === "EmbeddedPostgresError" && result.failure.message.includes(`cannot reach ${closed}`))
      } else {
        // An ordinary user runs the server as itself and owns the folder: nothing to refuse.
        assert.deepStrictEqual(result._tag, "Success")
      }
    }), 60_000)
})
