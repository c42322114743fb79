import { ApiKeyRepository, Transactor, Unavailable } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { EmbeddedPostgres } from "../src/index.ts"
import { embeddedServerProcesses, layerTestPorts } from "../src/testing.ts"
import { tempDataDir } from "./temp-data-dir.ts"

// The postmaster and every backend: the whole server stops answering while its sockets stay open.
const signal = (dataDir: string, name: NodeJS.Signals) => Effect.sync(() => {
  for (const pid of embeddedServerProcesses(dataDir)) process.kill(pid, name)
})

// The call's failure and how long it took to come.
const timedFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const started = Date.now()
    const failure = yield* Effect.flip(effect).pipe(Effect.timeout("20 seconds"))
    return { failure, millis: Date.now() - started }
  })

describe("a frozen PostgreSQL server (SIGSTOP)", () => {
  it.live("fails statements, waits for a pooled connection and transactions as Unavailable within the query timeout, then recovers", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDataDir
      yield* Effect.gen(function*() {
        const keys = yield* ApiKeyRepository
        const transactor = yield* Transactor
        assert.isTrue(Option.isNone(yield* keys.findByDigest("digest")))
        yield* signal(dataDir, "SIGSTOP")
        const answers = yield* Effect.gen(function*() {
          // More calls than the pool has connections: some wait for one that a stuck statement holds.
          const reads = Array.from({ length: 6 }, () => timedFailure(keys.findByDigest("digest")))
          const writes = Array.from({ length: 2 }, () => timedFailure(transactor.withTransaction(keys.findByDigest("digest"))))
          return yield* Effect.all([...reads, ...writes], { concurrency: "unbounded" })
        }).pipe(Effect.ensuring(signal(dataDir, "SIGCONT")))
        for (const answer of answers) {
          assert.instanceOf(answer.failure, Unavailable)
          // One second of query timeout, at most one more for a transaction's failed step and the host.
          assert.isBelow(answer.millis, 3_500)
        }
        // Nothing restarts anything: the pool replaces what the freeze broke.
        const recovered = yield* keys.findByDigest("digest").pipe(
          Effect.retry({ times: 40, schedule: undefined }),
          Effect.timeout("20 seconds")
        )
        assert.isTrue(Option.isNone(recovered))
      }).pipe(Effect.provide(layerTestPorts(EmbeddedPostgres({ dataDir, maxConnections: 2, queryTimeout: "1 second" }))))
    }), 90_000)
})
