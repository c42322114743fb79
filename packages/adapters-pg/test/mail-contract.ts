import {
  AccountToken,
  AccountTokenId,
  AccountTokenRepository,
  type AccountTokenPurpose,
  MailMessage,
  MailMessageId,
  MailRepository,
  PasswordResetRequest,
  SessionRepository,
  UserRepository,
  WorkspaceId
} from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Option } from "effect"
import { at, makeSession, makeUser, passwordHash, token } from "./fixtures.ts"

/** A pending message due at `due` (seconds after the fixtures' epoch). */
export const makeMessage = (overrides: Partial<MailMessage> = {}, due = 0): MailMessage =>
  new MailMessage({
    id: MailMessageId.make(`eml_${token()}`),
    dedupeKey: `password_reset:tok_${token()}`,
    to: `${token()}@example.com`,
    content: { template: "password_reset", name: "Ada <Lovelace>" },
    sealedToken: Option.some(`v1.${token()}.${token()}`),
    linkExpiresAt: Option.some(at(3600)),
    status: "pending",
    attempts: 0,
    lastError: Option.none(),
    nextAttemptAt: Option.some(at(due)),
    createdAt: at(0),
    updatedAt: at(0),
    sentAt: Option.none(),
    ...overrides
  })

const makeToken = (userId: AccountToken["userId"], email: AccountToken["email"], purpose: AccountTokenPurpose): AccountToken =>
  new AccountToken({
    id: AccountTokenId.make(`tok_${token()}`),
    userId,
    purpose,
    email,
    digest: token() + token(),
    createdAt: at(0),
    expiresAt: at(3600),
    usedAt: Option.none()
  })

const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id).sort()

type MailPorts = MailRepository | AccountTokenRepository | UserRepository | SessionRepository

/** The mail outbox and the account tokens (with the user and session writes the flows need), against one target. */
export const mailContract = <E>(label: string, target: Layer.Layer<MailPorts, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`mail ports on ${label}`, (it) => {
    it.effect("a message is stored as given and found by id; a second message of the same change writes nothing", () =>
      Effect.gen(function*() {
        const repo = yield* MailRepository
        const message = makeMessage()
        assert.isTrue(yield* repo.insert(message))
        assert.deepStrictEqual(yield* repo.findById(message.id), Option.some(message))
        const twin = makeMessage({ dedupeKey: message.dedupeKey, to: message.to })
        assert.isFalse(yield* repo.insert(twin))
        assert.isTrue(Option.isNone(yield* repo.findById(twin.id)))
        assert.deepStrictEqual(ids(yield* repo.listByRecipient(message.to, 10)), [message.id])
      }))

    it.effect("the status of each named change's message, and nothing for a change without one", () =>
      Effect.gen(function*() {
        const repo = yield* MailRepository
        const pending = makeMessage()
        const failed = makeMessage()
        yield* Effect.forEach([pending, failed], repo.insert, { discard: true })
        yield* repo.settle(failed, new MailMessage({ ...failed, status: "failed", attempts: 1, sealedToken: Option.none(), nextAttemptAt: Option.none(), lastError: Option.some("550 no"), updatedAt: at(1) }))
        const statuses = yield* repo.statusesOf([pending.dedupeKey, failed.dedupeKey, "invitation:inv_none"])
        assert.deepStrictEqual([...statuses.entries()].sort(), [[pending.dedupeKey, "pending"], [failed.dedupeKey, "failed"]].sort())
      }))

    it.effect("reset requests are claimed with a lease, come back when it runs out, and are completed once", () =>
      Effect.gen(function*() {
        const repo = yield* AccountTokenRepository
        const request = new PasswordResetRequest({ id: `prr_${token()}`, email: makeUser().email, requestedAt: at(0) })
        yield* repo.requestReset(request)
        const claimed = yield* repo.claimResetRequests(at(1), 100, at(120))
        assert.deepStrictEqual(claimed.filter((r) => r.id === request.id), [request])
        assert.isFalse((yield* repo.claimResetRequests(at(2), 100, at(120))).some((r) => r.id === request.id))
        assert.isTrue((yield* repo.claimResetRequests(at(121), 100, at(240))).some((r) => r.id === request.id))
        const completions = yield* Effect.all([repo.completeResetRequest(request.id), repo.completeResetRequest(request.id)], { concurrency: "unbounded" })
        assert.deepStrictEqual([...completions].sort(), [false, true])
        assert.isFalse((yield* repo.claimResetRequests(at(1000), 100, at(1200))).some((r) => r.id === request.id))
      }))

    it.effect("claims only due pending messages, leases them, and gives them back when the lease runs out", () =>
      Effect.gen(function*() {
        const repo = yield* MailRepository
        // Far in the future, so other tests' messages in a shared database are never due before these.
        const base = 10_000_000 + Math.floor(Math.random() * 1_000_000) * 100
        const due = makeMessage({}, base)
        const later = makeMessage({}, base + 50)
        const sent = makeMessage({ status: "sent", sealedToken: Option.none(), nextAttemptAt: Option.none(), sentAt: Option.some(at(1)) })
        yield* Effect.forEach([due, later, sent], repo.insert, { discard: true })
        assert.deepStrictEqual(yield* repo.claimDue(at(base), 0, at(base + 10)), [])
        const claimed = (yield* repo.claimDue(at(base), 1000, at(base + 10))).filter((m) => m.id === due.id || m.id === later.id)
        assert.deepStrictEqual(claimed, [due])
        // Leased: not claimable again until base + 10, then it is, carrying its (new) due time.
        assert.isFalse((yield* repo.claimDue(at(base + 5), 1000, at(base + 20))).some((m) => m.id === due.id))
        const again = (yield* repo.claimDue(at(base + 10), 1000, at(base + 100))).filter((m) => m.id === due.id)
        assert.deepStrictEqual(again.map((m) => m.nextAttemptAt), [Option.some(at(base + 10))])
      }))

    it.effect("concurrent claims never hand the same message to two senders", () =>
      Effect.gen(function*() {
        const repo = yield* MailRepository
        const base = 20_000_000 + Math.floor(Math.random() * 1_000_000) * 100
        const messages = Array.from({ length: 12 }, (_, i) => makeMessage({}, base + i))
        yield* Effect.forEach(messages, repo.insert, { discard: true })
        const batches = yield* Effect.all(
          Array.from({ length: 4 }, () => repo.claimDue(at(base + 20), 4, at(base + 1000))),
          { concurrency: "unbounded" }
        )
        const mine = new Set(messages.map((m) => m.id))
        const taken = batches.flat().map((m) => m.id).filter((id) => mine.has(id))
        assert.strictEqual(new Set(taken).size, taken.length)
      }))

    it.effect("an outcome is recorded once: settling from a stale attempt count changes nothing", () =>
      Effect.gen(function*() {
        const repo = yield* MailRepository
        const message = makeMessage()
        yield* repo.insert(message)
        const retry = new MailMessage({
          ...message,
          attempts: 1,
          lastError: Option.some("421 try later"),
          nextAttemptAt: Option.some(at(30)),
          updatedAt: at(1)
        })
        assert.isTrue(yield* repo.settle(message, retry))
        const sent = new MailMessage({ ...message, status: "sent", attempts: 1, sealedToken: Option.none(), nextAttemptAt: Option.none(), sentAt: Option.some(at(2)), updatedAt: at(2) })
        assert.isFalse(yield* repo.settle(message, sent))
        assert.deepStrictEqual(yield* repo.findById(message.id), Option.some(retry))
        const done = new MailMessage({ ...retry, status: "sent", attempts: 2, lastError: Option.none(), sealedToken: Option.none(), nextAttemptAt: Option.none(), sentAt: Option.some(at(40)), updatedAt: at(40) })
        assert.isTrue(yield* repo.settle(retry, done))
        assert.isFalse(yield* repo.settle(done, done))
        assert.deepStrictEqual(yield* repo.findById(message.id), Option.some(done))
      }))

    it.effect("messages to one address list newest first, up to the limit", () =>
      Effect.gen(function*() {
        const repo = yield* MailRepository
        const to = `${token()}@example.com`
        const messages = [1, 2, 3].map((s) => makeMessage({ to, createdAt: at(s), updatedAt: at(s) }))
        yield* Effect.forEach(messages, repo.insert, { discard: true })
        const listed = yield* repo.listByRecipient(to, 2)
        assert.deepStrictEqual(listed.map((m) => m.id), [messages[2]?.id, messages[1]?.id])
      }))

    it.effect("account tokens are found by digest and spent once; spending all of a purpose spares the others", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const repo = yield* AccountTokenRepository
        const user = makeUser()
        yield* users.insert(user, passwordHash())
        const reset = makeToken(user.id, user.email, "password_reset")
        const reset2 = makeToken(user.id, user.email, "password_reset")
        const verify = makeToken(user.id, user.email, "email_verification")
        yield* Effect.forEach([reset, reset2, verify], repo.insert, { discard: true })
        assert.deepStrictEqual(yield* repo.findByDigest(reset.digest), Option.some(reset))
        assert.isTrue(Option.isNone(yield* repo.findByDigest("nope")))
        const uses = yield* Effect.all([repo.use(reset.id, at(5)), repo.use(reset.id, at(6))], { concurrency: "unbounded" })
        assert.deepStrictEqual([...uses].sort(), [false, true])
        yield* repo.useAll(user.id, "password_reset", at(7))
        assert.deepStrictEqual((yield* repo.findByDigest(reset2.digest)).pipe(Option.flatMap((t) => t.usedAt)), Option.some(at(7)))
        assert.deepStrictEqual((yield* repo.findByDigest(verify.digest)).pipe(Option.flatMap((t) => t.usedAt)), Option.none())
        assert.isTrue(Option.exists(yield* repo.findByDigest(reset.digest), (t) => !t.isUsableAt(at(1))))
      }))

    it.effect("a user's address is verified once (the first time stands) and the password hash replaced", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const user = makeUser()
        yield* users.insert(user, passwordHash())
        yield* users.markEmailVerified(user.id, at(10))
        yield* users.markEmailVerified(user.id, at(20))
        assert.deepStrictEqual((yield* users.findById(user.id)).pipe(Option.flatMap((u) => u.emailVerifiedAt)), Option.some(at(10)))
        const hash = passwordHash()
        yield* users.setPasswordHash(user.id, hash)
        assert.deepStrictEqual((yield* users.findByEmail(user.email)).pipe(Option.map((c) => [c.passwordHash, c.user.emailVerified])), Option.some([hash, true]))
      }))

    it.effect("revoking every session of a user ends only that user's live sessions and answers those it ended", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const sessions = yield* SessionRepository
        const user = makeUser()
        const other = makeUser()
        yield* users.insert(user, passwordHash())
        yield* users.insert(other, passwordHash())
        const workspace = WorkspaceId.make(`ws_${token()}`)
        const mine = [makeSession(user.id, workspace), makeSession(user.id, workspace)]
        const theirs = makeSession(other.id, workspace)
        yield* Effect.forEach([...mine, theirs], sessions.insert, { discard: true })
        yield* sessions.revoke(mine[0]?.id ?? theirs.id, at(1), "signed_out")
        const revoked = yield* sessions.revokeAllForUser(user.id, at(2), "password_reset")
        assert.deepStrictEqual(revoked.map((s): ReadonlyArray<string | null> => [s.id, Option.getOrNull(s.revokeReason)]), [[mine[1]?.id ?? "", "password_reset"]])
        assert.deepStrictEqual(yield* sessions.listByUser(user.id), [])
        assert.strictEqual((yield* sessions.listByUser(other.id)).length, 1)
        const ended = yield* sessions.findById(mine[1]?.id ?? theirs.id)
        assert.deepStrictEqual(ended.pipe(Option.flatMap((s) => s.revokeReason)), Option.some("password_reset"))
        assert.isTrue(DateTime.isDateTime(Option.getOrUndefined(ended.pipe(Option.flatMap((s) => s.revokedAt)))))
      }))
  })
