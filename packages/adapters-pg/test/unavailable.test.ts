import {
  ApiKeyRepository,
  ApiKeys,
  AppearanceRepository,
  Email,
  MembershipRepository,
  mintApiKey,
  SessionRepository,
  Transactor,
  Unavailable,
  UserId,
  UserRepository,
  WorkspaceId
} from "@atrium/domain"
import { Domain, systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { EmbeddedPostgres, PortsPg, PostgresUrl } from "../src/index.ts"
import { embeddedServerProcesses } from "../src/testing.ts"
import { tempDataDir } from "./temp-data-dir.ts"

// Nothing listens on port 1, so every connection attempt is refused at once.
const unreachable = PortsPg.pipe(Layer.provide(PostgresUrl(Redacted.make("postgres://postgres@127.0.0.1:1/test"))))

// Bounded, so a hang fails the test instead of stalling it.
const failure = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Effect.flip, Effect.timeout("10 seconds"))

describe("a database that cannot answer", () => {
  it.live("is Unavailable for repository calls and transactions, never a defect", () =>
    Effect.gen(function*() {
      const keys = yield* ApiKeyRepository
      assert.instanceOf(yield* failure(keys.findByDigest("digest")), Unavailable)
      assert.instanceOf(yield* failure(keys.list(WorkspaceId.make("ws_x"), { limit: 10, cursor: undefined })), Unavailable)
      assert.instanceOf(yield* failure((yield* Transactor).withTransaction(Effect.void)), Unavailable)
    }).pipe(Effect.provide(unreachable)))

  it.live("is Unavailable for the identity ports, so a session lookup never reads as a rejection", () =>
    Effect.gen(function*() {
      assert.instanceOf(yield* failure((yield* UserRepository).findByEmail(Email.make("ada@example.com"))), Unavailable)
      assert.instanceOf(yield* failure((yield* SessionRepository).findByAccessDigest("digest")), Unavailable)
      assert.instanceOf(yield* failure((yield* MembershipRepository).countOwners(WorkspaceId.make("ws_x"))), Unavailable)
      assert.instanceOf(yield* failure((yield* AppearanceRepository).get(WorkspaceId.make("ws_x"), UserId.make("usr_x"))), Unavailable)
    }).pipe(Effect.provide(unreachable)))

  it.live("makes authentication answer Unavailable (503), not a rejection (401)", () =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      // A well-formed key with a valid checksum gets past the offline checks to the lookup, which fails.
      const minted = yield* mintApiKey("live")
      assert.instanceOf(yield* failure(keys.authenticate(minted.plaintext)), Unavailable)
      const created = yield* failure(keys.create(systemPrincipal(WorkspaceId.make("ws_x")), { name: "ci" }))
      assert.instanceOf(created, Unavailable)
    }).pipe(Effect.provide(Domain.layerOver(unreachable))))

  it.live("is Unavailable when the embedded server goes away under an open connection", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDataDir
      yield* Effect.gen(function*() {
        const keys = yield* ApiKeyRepository
        // No tables yet: a healthy server answering a bad query is a defect (a bug), not an outage.
        const exit = yield* keys.findByDigest("digest").pipe(Effect.exit)
        assert.isTrue(exit._tag === "Failure" && exit.cause.reasons.some((reason) => reason._tag === "Die"))
        // The server and its backends die under the pool (`kill -9`): the next statement is an outage.
        for (const pid of embeddedServerProcesses(dataDir)) process.kill(pid, "SIGKILL")
        assert.instanceOf(yield* failure(keys.findByDigest("digest")), Unavailable)
      }).pipe(Effect.provide(PortsPg.pipe(Layer.provide(EmbeddedPostgres({ dataDir, maxConnections: 1 })))))
    }), 60_000)
})
