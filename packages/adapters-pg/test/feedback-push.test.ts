import {
  Email,
  FeatureRequest,
  FeatureRequestId,
  FeatureRequestRepository,
  PushDevice,
  PushDeviceId,
  PushDeviceRepository,
  PushMessage,
  PushMessageRepository,
  SessionId,
  User,
  UserId,
  UserName,
  UserRepository,
  Workspace,
  WorkspaceId,
  WorkspaceRepository,
  WorkspaceSlug
} from "@atrium/domain"
import { PortsMemory } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option, Redacted } from "effect"
import { EmbeddedPostgresTemp, layerTestPorts, PostgresTestSchema } from "../src/testing.ts"
import { makePushMessage } from "./fixtures.ts"

type Needs = FeatureRequestRepository | PushDeviceRepository | PushMessageRepository | UserRepository | WorkspaceRepository

const databaseUrl = process.env.DATABASE_URL
// One contract, every implementation: memory, the embedded database, and a real server when DATABASE_URL names one.
const targets: ReadonlyArray<{ readonly label: string; readonly layer: Layer.Layer<Needs, unknown> }> = [
  { label: "memory", layer: PortsMemory },
  { label: "embedded PostgreSQL", layer: layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 4 })) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: layerTestPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 4 })) }])
]

let counter = 0
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`
const at = (seconds: number) => DateTime.makeUnsafe(1_800_000_000_000 + seconds * 1000)

// A workspace and a user of it, stored, so foreign keys hold.
const person = Effect.gen(function*() {
  const tag = unique()
  const workspace = new Workspace({ id: WorkspaceId.make(`ws_${tag}`), name: "W", slug: WorkspaceSlug.make(`w-${tag}`), personal: false, createdAt: at(0) })
  yield* (yield* WorkspaceRepository).insert(workspace)
  const user = new User({ id: UserId.make(`usr_${tag}`), email: Email.make(`u${tag}@example.com`), name: UserName.make("U"), createdAt: at(0), emailVerifiedAt: Option.none() })
  yield* (yield* UserRepository).insert(user, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA")
  return { workspace, user }
})

const request = (who: { readonly workspace: Workspace; readonly user: User }, title: string, createdAt: number) =>
  new FeatureRequest({
    id: FeatureRequestId.make(`fr_${unique()}`),
    workspaceId: who.workspace.id,
    authorId: who.user.id,
    authorName: "U",
    title,
    details: "",
    status: "open",
    statusNote: Option.none(),
    mergedInto: Option.none(),
    voteCount: 0,
    createdAt: at(createdAt),
    statusChangedAt: at(createdAt)
  })

// The repositories store what the domain hands them: a sealed token (opaque here) and the token's digest.
const device = (userId: UserId, installationId: string, digest: string, sessionId = `ses_${unique()}`) =>
  new PushDevice({
    id: PushDeviceId.make(`dev_${unique()}`),
    userId,
    sessionId: SessionId.make(sessionId),
    installationId,
    sealedToken: `v1.${unique()}.sealed`,
    tokenDigest: digest,
    platform: "ios",
    appVersion: "1.0.0",
    locale: "en",
    createdAt: at(0),
    updatedAt: at(0)
  })

// This file's own epoch for the due time, which its claims compare against.
const message = (userId: UserId, deviceId: PushDeviceId) =>
  makePushMessage(userId, deviceId, { nextAttemptAt: Option.some(at(0)), createdAt: at(0), updatedAt: at(0) })

for (const target of targets) {
  // One database per target for the whole block: the tests keep to rows they made.
  layer(target.layer, { timeout: "60 seconds", excludeTestServices: true })(`feature request and push repositories on ${target.label}`, (it) => {
    it.effect("votes are idempotent, counted in step, and moved once on merge", () =>
      Effect.gen(function*() {
        const repo = yield* FeatureRequestRepository
        const ada = yield* person
        const bob = yield* person
        const a = request(ada, "First", 1)
        const b = request(ada, "Second", 2)
        yield* repo.insert(a, Option.some("key-1"))
        yield* repo.insert(b, Option.none())
        assert.isTrue(yield* repo.addVote(a.id, bob.user.id, at(3)))
        assert.isFalse(yield* repo.addVote(a.id, bob.user.id, at(4)))
        yield* repo.addVote(a.id, ada.user.id, at(4))
        yield* repo.addVote(b.id, bob.user.id, at(5))
        assert.strictEqual(Option.getOrThrow(yield* repo.findById(a.id)).voteCount, 2)
        assert.deepStrictEqual([...(yield* repo.votedBy(bob.user.id, [a.id, b.id]))].sort(), [a.id, b.id].sort())
        yield* repo.moveVotes(a.id, b.id)
        assert.strictEqual(Option.getOrThrow(yield* repo.findById(a.id)).voteCount, 0)
        assert.strictEqual(Option.getOrThrow(yield* repo.findById(b.id)).voteCount, 2)
        assert.deepStrictEqual([...(yield* repo.voters(b.id))].sort(), [ada.user.id, bob.user.id].sort())
        assert.isTrue(yield* repo.removeVote(b.id, bob.user.id))
        assert.isFalse(yield* repo.removeVote(b.id, bob.user.id))
        assert.strictEqual(Option.getOrThrow(yield* repo.findById(b.id)).voteCount, 1)
        assert.strictEqual(Option.getOrThrow(yield* repo.findByIdempotencyKey(ada.user.id, "key-1")).id, a.id)
        assert.deepStrictEqual((yield* repo.createdByAuthorSinceForCreate(ada.user.id, at(1))).map(DateTime.toEpochMillis), [DateTime.toEpochMillis(at(2))])
      }))

    it.effect("pages the board by votes and by age without repeats", () =>
      Effect.gen(function*() {
        const repo = yield* FeatureRequestRepository
        const ada = yield* person
        const requests = [request(ada, "req 0", 10), request(ada, "req 1", 11), request(ada, "req 2", 12)]
        for (const r of requests) yield* repo.insert(r, Option.none())
        const voter = yield* person
        yield* repo.addVote(requests[0]?.id ?? FeatureRequestId.make("fr_x"), voter.user.id, at(20))
        const mine = (rows: ReadonlyArray<FeatureRequest>) => rows.filter((r) => r.authorId === ada.user.id).map((r) => r.title)
        const walk = (sort: "top" | "new") =>
          Effect.gen(function*() {
            const seen: Array<FeatureRequest> = []
            let cursor: string | undefined = undefined
            for (let n = 0; n < 1000; n++) {
              const page: { readonly data: ReadonlyArray<FeatureRequest>; readonly nextCursor: string | null } = yield* repo.list({ status: "open", sort }, { limit: 1, cursor })
              seen.push(...page.data)
              if (page.nextCursor === null) break
              cursor = page.nextCursor
            }
            return mine(seen)
          })
        assert.deepStrictEqual(yield* walk("new"), ["req 2", "req 1", "req 0"])
        assert.strictEqual((yield* walk("top"))[0], "req 0")
        assert.deepStrictEqual([...(yield* walk("top"))].sort(), ["req 0", "req 1", "req 2"])
      }))

    it.effect("a token belongs to one user at a time; devices go with their session or their token", () =>
      Effect.gen(function*() {
        const repo = yield* PushDeviceRepository
        const ada = yield* person
        const bob = yield* person
        const digest = `digest-${unique()}`
        yield* repo.upsert(device(ada.user.id, "tablet", digest))
        yield* repo.upsert(device(bob.user.id, "tablet", digest, "ses_bobsession"))
        assert.deepStrictEqual(yield* repo.listByUser(ada.user.id), [])
        assert.deepStrictEqual((yield* repo.listByUser(bob.user.id)).map((d) => d.tokenDigest), [digest])
        yield* repo.upsert(device(bob.user.id, "phone", `digest-${unique()}`, "ses_other"))
        yield* repo.deleteBySession(SessionId.make("ses_bobsession"))
        assert.deepStrictEqual((yield* repo.listByUser(bob.user.id)).map((d) => d.installationId), ["phone"])
        const phone = (yield* repo.listByUser(bob.user.id))[0]
        yield* repo.deleteByTokenDigest(phone?.tokenDigest ?? "")
        assert.deepStrictEqual(yield* repo.listByUser(bob.user.id), [])
        yield* repo.savePreferences(ada.user.id, { ai_tasks: false, invitations: true, feature_requests: true, billing: false, schedules: true })
        const preferences = yield* repo.preferences([ada.user.id, bob.user.id])
        assert.deepStrictEqual(preferences.get(ada.user.id)?.billing, false)
        assert.isFalse(preferences.has(bob.user.id))
      }))

    it.effect("a device that goes takes its unsent messages with it", () =>
      Effect.gen(function*() {
        const devices = yield* PushDeviceRepository
        const outbox = yield* PushMessageRepository
        const ada = yield* person
        const phone = yield* devices.upsert(device(ada.user.id, "phone", `digest-${unique()}`, "ses_phone"))
        yield* outbox.insertMany([message(ada.user.id, phone.id)])
        const mine = (claimed: ReadonlyArray<PushMessage>) => claimed.filter((m) => m.userId === ada.user.id)
        yield* devices.deleteBySession(SessionId.make("ses_phone"))
        assert.deepStrictEqual(mine(yield* outbox.claimDue(100, at(1), Duration.minutes(2))), [])
      }))

    it.effect("the push outbox is claimed under a lease that another claim skips until it ends", () =>
      Effect.gen(function*() {
        const repo = yield* PushMessageRepository
        const ada = yield* person
        const pending = [message(ada.user.id, PushDeviceId.make("dev_a")), message(ada.user.id, PushDeviceId.make("dev_b"))]
        yield* repo.insertMany(pending)
        const mineOf = (claimed: ReadonlyArray<PushMessage>) => claimed.filter((m) => m.userId === ada.user.id)
        const first = mineOf(yield* repo.claimDue(100, at(1), Duration.minutes(2)))
        assert.strictEqual(first.length, 2)
        assert.strictEqual(mineOf(yield* repo.claimDue(100, at(2), Duration.minutes(2))).length, 0)
        const [one] = first
        if (one !== undefined) yield* repo.updateMany([one.retryLater("503", Duration.seconds(10), at(2))])
        assert.strictEqual(mineOf(yield* repo.claimDue(100, at(5), Duration.minutes(2))).length, 0)
        assert.strictEqual(mineOf(yield* repo.claimDue(100, at(13), Duration.minutes(2))).length, 1, "the retried one is due; the other is still leased")
        assert.strictEqual(mineOf(yield* repo.claimDue(100, at(200), Duration.minutes(2))).length, 2, "leases end")
      }))
  })
}
