import {
  AppearanceRepository,
  Email,
  InvitationRepository,
  type Invitation,
  MembershipId,
  MembershipRepository,
  Membership,
  Session,
  SessionRepository,
  Transactor,
  UserId,
  UserRepository,
  WorkspaceId,
  WorkspaceRepository
} from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Option } from "effect"
import type { Ports } from "../src/index.ts"
import { at, makeAppearance, makeInvitation, makeMembership, makeSession, makeUser, makeWorkspace, passwordHash, rotated } from "./fixtures.ts"
import { whileHeld } from "./lock-wait.ts"
import { collectPages, seedWorkspace } from "./repository-contract.ts"
import type { StorageProbe } from "./storage-probe.ts"

/** A fresh user, stored with a PHC-looking hash. */
const seedUser = Effect.gen(function*() {
  const user = makeUser()
  yield* (yield* UserRepository).insert(user, passwordHash())
  return user
})

/** A fresh workspace with a fresh user as its owner. */
const seedOwned = Effect.gen(function*() {
  const workspace = yield* seedWorkspace
  const user = yield* seedUser
  const session = makeSession(user.id, workspace.id)
  yield* (yield* SessionRepository).insert(session)
  return { workspace, user, session }
})

const byTimeThenId = <A extends { readonly createdAt: DateTime.Utc; readonly id: string }>(a: A, b: A) =>
  DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt) || (a.id < b.id ? -1 : 1)

/** The identity ports' behaviour (users, memberships, sessions, invitations, appearance), run against one database target. */
export const identityContract = <E>(label: string, target: Layer.Layer<Ports | StorageProbe, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`identity ports on ${label}`, (it) => {
    it.effect("users are found by normalised email with their hash, and by id; a taken email is EmailTaken and writes nothing", () =>
      Effect.gen(function*() {
        const users = yield* UserRepository
        const user = makeUser()
        const hash = passwordHash()
        yield* users.insert(user, hash)
        assert.deepStrictEqual(yield* users.findById(user.id), Option.some(user))
        assert.deepStrictEqual(yield* users.findByEmail(user.email), Option.some({ user, passwordHash: hash }))
        const twin = makeUser({ email: user.email })
        const error = yield* users.insert(twin, passwordHash()).pipe(Effect.flip)
        assert.strictEqual(error._tag, "EmailTaken")
        assert.isTrue(Option.isNone(yield* users.findById(twin.id)))
        // The local part's case is kept but not significant: found without case, and a case twin is taken.
        const shouted = Email.make(`${user.email.split("@")[0]?.toUpperCase()}@${user.email.split("@")[1]}`)
        assert.deepStrictEqual(yield* users.findByEmail(shouted), Option.some({ user, passwordHash: hash }))
        const caseTwin = makeUser({ email: shouted })
        assert.strictEqual((yield* users.insert(caseTwin, passwordHash()).pipe(Effect.flip))._tag, "EmailTaken")
        assert.isTrue(Option.isNone(yield* users.findById(caseTwin.id)))
        assert.isTrue(Option.isNone(yield* users.findById(UserId.make("usr_missing"))))
        assert.isTrue(Option.isNone(yield* users.findByEmail(Email.make("nobody@example.com"))))
      }))

    it.effect("memberships are unique per workspace and user (Conflict), found only within their workspace", () =>
      Effect.gen(function*() {
        const repo = yield* MembershipRepository
        const { workspace, user } = yield* seedOwned
        const other = yield* seedWorkspace
        const membership = makeMembership(workspace.id, user.id, "owner")
        yield* repo.insert(membership)
        assert.deepStrictEqual(yield* repo.find(workspace.id, user.id), Option.some(membership))
        assert.deepStrictEqual(yield* repo.findById(workspace.id, membership.id), Option.some(membership))
        assert.isTrue(Option.isNone(yield* repo.findById(other.id, membership.id)))
        assert.isTrue(Option.isNone(yield* repo.find(other.id, user.id)))
        const error = yield* repo.insert(makeMembership(workspace.id, user.id, "member")).pipe(Effect.flip)
        assert.strictEqual(error._tag, "Conflict")
        // The same user in another workspace is fine, and listed oldest first.
        const second = makeMembership(other.id, user.id, "member", { createdAt: at(5) })
        yield* repo.insert(second)
        assert.deepStrictEqual(yield* repo.listByUser(user.id), [membership, second])
      }))

    it.effect("a user's workspaces come with their memberships in one read, oldest first, ties by id in code-unit order", () =>
      Effect.gen(function*() {
        const repo = yield* MembershipRepository
        const { workspace, user } = yield* seedOwned
        const personal = makeWorkspace({ personal: true, name: "Ada's workspace", createdAt: at(-50) })
        yield* (yield* WorkspaceRepository).insert(personal)
        const third = yield* seedWorkspace
        const stranger = yield* seedUser
        const oldest = makeMembership(personal.id, user.id, "owner", { createdAt: at(3) })
        // Same time: "Z" sorts before "a" by code unit (a locale collation would put them the other way round).
        const upper = makeMembership(workspace.id, user.id, "admin", { id: MembershipId.make(`mem_Z${oldest.id.slice(4)}`), createdAt: at(7) })
        const lower = makeMembership(third.id, user.id, "member", { id: MembershipId.make(`mem_a${oldest.id.slice(4)}`), createdAt: at(7) })
        for (const membership of [lower, oldest, upper]) yield* repo.insert(membership)
        yield* repo.insert(makeMembership(workspace.id, stranger.id, "member"))
        const found = yield* repo.listWorkspacesOfUser(user.id)
        assert.deepStrictEqual(found, [
          { membership: oldest, workspace: personal },
          { membership: upper, workspace },
          { membership: lower, workspace: third }
        ])
        assert.deepStrictEqual(yield* repo.listWorkspacesOfUser(UserId.make("usr_missing")), [])
      }))

    it.effect("members list oldest first with their users, page by page, with ties split by id", () =>
      Effect.gen(function*() {
        const repo = yield* MembershipRepository
        const workspace = yield* seedWorkspace
        const noise = yield* seedWorkspace
        const users = yield* Effect.forEach([0, 1, 2, 3, 4], () => seedUser)
        const created = users.map((user, i) => makeMembership(workspace.id, user.id, i === 0 ? "owner" : "member", { createdAt: at([0, 10, 10, 20, 30][i] ?? 0) }))
        yield* Effect.forEach(created, repo.insert, { discard: true })
        yield* repo.insert(makeMembership(noise.id, users[0]?.id ?? UserId.make("usr_x"), "owner", { createdAt: at(15) }))
        const pages = yield* collectPages((page) => repo.listByWorkspace(workspace.id, page), 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
        const listed = pages.flat()
        const expected = [...created].sort(byTimeThenId)
        assert.deepStrictEqual(listed.map((m) => m.membership), expected)
        const userOf = new Map(users.map((u) => [u.id, u]))
        assert.deepStrictEqual(listed.map((m) => m.user), expected.map((m) => userOf.get(m.userId)))
      }))

    it.effect("a role change and a removal touch only the named membership of the named workspace", () =>
      Effect.gen(function*() {
        const repo = yield* MembershipRepository
        const { workspace, user } = yield* seedOwned
        const other = yield* seedWorkspace
        const membership = makeMembership(workspace.id, user.id, "member")
        yield* repo.insert(membership)
        yield* repo.update(new Membership({ ...membership, workspaceId: other.id, role: "owner" }))
        assert.deepStrictEqual(yield* repo.find(workspace.id, user.id), Option.some(membership))
        const promoted = new Membership({ ...membership, role: "admin" })
        yield* repo.update(promoted)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, membership.id), Option.some(promoted))
        yield* repo.delete(other.id, membership.id)
        assert.isTrue(Option.isSome(yield* repo.findById(workspace.id, membership.id)))
        yield* repo.delete(workspace.id, membership.id)
        assert.isTrue(Option.isNone(yield* repo.findById(workspace.id, membership.id)))
      }))

    it.effect("countOwners holds the owner rows: a transaction counting after a concurrent demotion waits and sees it", () =>
      Effect.gen(function*() {
        const repo = yield* MembershipRepository
        const tx = yield* Transactor
        const workspace = yield* seedWorkspace
        const [a, b] = yield* Effect.forEach([0, 1], () => seedUser)
        if (a === undefined || b === undefined) return assert.fail("no users")
        const ownerA = makeMembership(workspace.id, a.id, "owner")
        const ownerB = makeMembership(workspace.id, b.id, "owner")
        yield* repo.insert(ownerA)
        yield* repo.insert(ownerB)
        assert.strictEqual(yield* repo.countOwners(workspace.id), 2)
        // The first transaction counts (locking both owners), holds them until the second waits to count, then demotes B.
        const { held: first, waited: second } = yield* whileHeld(
          (waitedOn) =>
            repo.countOwners(workspace.id).pipe(
              Effect.tap(waitedOn),
              Effect.tap(repo.update(new Membership({ ...ownerB, role: "admin" })))
            ),
          tx.withTransaction(repo.countOwners(workspace.id))
        )
        assert.strictEqual(first, 2)
        // Without the lock a second connection would read the snapshot from before the demotion: 2.
        assert.strictEqual(second, 1)
      }))

    it.effect("sessions round-trip and are found by id, current access digest, and every superseded one after rotations", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const { session } = yield* seedOwned
        assert.deepStrictEqual(yield* sessions.findById(session.id), Option.some(session))
        assert.deepStrictEqual(yield* sessions.findByAccessDigest(session.accessDigest), Option.some(session))
        assert.deepStrictEqual(yield* sessions.findByRefreshDigest(session.refreshDigest), Option.some({ session, current: true, retiredAt: Option.none() }))
        const next = rotated(session, at(60))
        assert.isTrue(yield* sessions.rotate(session, next))
        assert.deepStrictEqual(yield* sessions.findById(session.id), Option.some(next))
        assert.deepStrictEqual(yield* sessions.findByAccessDigest(next.accessDigest), Option.some(next))
        assert.deepStrictEqual(yield* sessions.findByAccessDigest(session.accessDigest), Option.some(next))
        // Two rotations on, the first access token still leads to its (live) session, so it can be told "expired".
        const third = rotated(next, at(120))
        assert.isTrue(yield* sessions.rotate(next, third))
        assert.deepStrictEqual(yield* sessions.findByAccessDigest(session.accessDigest), Option.some(third))
        assert.deepStrictEqual(yield* sessions.findByAccessDigest(next.accessDigest), Option.some(third))
        assert.isTrue(Option.isNone(yield* sessions.findByAccessDigest("access-unknown")))
        assert.isTrue(Option.isNone(yield* sessions.findByRefreshDigest("refresh-unknown")))
      }))

    it.effect("a rotation retires the old refresh digest, which then finds the session as not current (reuse)", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const { session } = yield* seedOwned
        const second = rotated(session, at(60))
        const third = rotated(second, at(120))
        assert.isTrue(yield* sessions.rotate(session, second))
        assert.isTrue(yield* sessions.rotate(second, third))
        assert.deepStrictEqual(yield* sessions.findByRefreshDigest(third.refreshDigest), Option.some({ session: third, current: true, retiredAt: Option.none() }))
        // Each retired token says when its rotation retired it (the time the leeway is measured from).
        assert.deepStrictEqual(yield* sessions.findByRefreshDigest(second.refreshDigest), Option.some({ session: third, current: false, retiredAt: Option.some(at(120)) }))
        assert.deepStrictEqual(yield* sessions.findByRefreshDigest(session.refreshDigest), Option.some({ session: third, current: false, retiredAt: Option.some(at(60)) }))
        // A stale rotation (its `previous` is no longer current) changes nothing.
        assert.isFalse(yield* sessions.rotate(second, rotated(second, at(180))))
        assert.deepStrictEqual(yield* sessions.findById(session.id), Option.some(third))
      }))

    it.effect("rotation is a compare-and-set: of ten concurrent rotations from one state exactly one wins", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const { session } = yield* seedOwned
        const candidates = Array.from({ length: 10 }, () => rotated(session, at(60)))
        const won = yield* Effect.forEach(candidates, (next) => sessions.rotate(session, next), { concurrency: "unbounded" })
        assert.strictEqual(won.filter(Boolean).length, 1)
        const winner = candidates[won.indexOf(true)]
        assert.deepStrictEqual(yield* sessions.findById(session.id), Option.fromNullishOr(winner))
        assert.deepStrictEqual(yield* sessions.findByRefreshDigest(session.refreshDigest), Option.map(Option.fromNullishOr(winner), (s) => ({ session: s, current: false, retiredAt: Option.some(at(60)) })))
      }))

    it.effect("a revoked session does not rotate; revoking twice keeps the first time and reason", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const { session } = yield* seedOwned
        assert.isTrue(yield* sessions.revoke(session.id, at(30), "signed_out"))
        assert.isFalse(yield* sessions.revoke(session.id, at(40), "refresh_token_reused"))
        const stored = yield* sessions.findById(session.id)
        assert.deepStrictEqual(Option.flatMap(stored, (s) => s.revokedAt), Option.some(at(30)))
        assert.deepStrictEqual(Option.getOrNull(Option.flatMap(stored, (s) => s.revokeReason)), "signed_out")
        assert.isFalse(yield* sessions.rotate(session, rotated(session, at(60))))
        assert.isFalse(yield* sessions.revoke(session.id, at(50), "revoked"))
      }))

    it.effect("switching the active workspace sets only that column, so a rotation's digests survive a stale session value", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const { session } = yield* seedOwned
        const other = yield* seedWorkspace
        const next = rotated(session, at(60))
        assert.isTrue(yield* sessions.rotate(session, next))
        yield* sessions.setActiveWorkspace(session.id, other.id)
        assert.deepStrictEqual(yield* sessions.findById(session.id), Option.some(new Session({ ...next, activeWorkspaceId: other.id })))
        // And a rotation never moves the active workspace back.
        const third = rotated(next, at(120))
        assert.isTrue(yield* sessions.rotate(next, third))
        assert.deepStrictEqual(Option.map(yield* sessions.findById(session.id), (s) => s.activeWorkspaceId), Option.some(other.id))
        yield* sessions.setActiveWorkspace(session.id, WorkspaceId.make("ws_elsewhere"))
        assert.deepStrictEqual(Option.map(yield* sessions.findById(session.id), (s) => s.refreshDigest), Option.some(third.refreshDigest))
      }))

    it.effect("a user's live sessions list most recently used first; last-used never moves backwards", () =>
      Effect.gen(function*() {
        const sessions = yield* SessionRepository
        const { workspace, user, session } = yield* seedOwned
        const newer = makeSession(user.id, workspace.id, { lastUsedAt: at(100) })
        const revoked = makeSession(user.id, workspace.id, { lastUsedAt: at(200) })
        yield* Effect.forEach([newer, revoked], sessions.insert, { discard: true })
        yield* sessions.insert(makeSession((yield* seedUser).id, workspace.id, { lastUsedAt: at(300) }))
        yield* sessions.revoke(revoked.id, at(250), "revoked")
        assert.deepStrictEqual((yield* sessions.listByUser(user.id)).map((s) => s.id), [newer.id, session.id])
        yield* sessions.touchLastUsed(session.id, at(500))
        yield* sessions.touchLastUsed(session.id, at(400))
        assert.deepStrictEqual((yield* sessions.listByUser(user.id)).map((s) => [s.id, s.lastUsedAt]), [[session.id, at(500)], [newer.id, at(100)]])
      }))

    it.effect("invitations are found by id within their workspace and by token digest, updated, and listed newest first", () =>
      Effect.gen(function*() {
        const repo = yield* InvitationRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const user = yield* seedUser
        const created = [0, 10, 10, 20, 30].map((s) => makeInvitation(workspace.id, { createdAt: at(s), role: s === 20 ? "admin" : "member" }))
        yield* Effect.forEach(created, repo.insert, { discard: true })
        yield* repo.insert(makeInvitation(other.id, { createdAt: at(15) }))
        const [first] = created
        if (first === undefined) return assert.fail("no invitation")
        assert.deepStrictEqual(yield* repo.findById(workspace.id, first.id), Option.some(first))
        assert.isTrue(Option.isNone(yield* repo.findById(other.id, first.id)))
        assert.deepStrictEqual(yield* repo.findByTokenDigest(first.tokenDigest), Option.some(first))
        assert.isTrue(Option.isNone(yield* repo.findByTokenDigest("invitation-unknown")))
        const pages = yield* collectPages((page) => repo.listByWorkspace(workspace.id, page), 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
        assert.deepStrictEqual(pages.flat(), [...created].sort((a, b) => byTimeThenId(b, a)))
        const accepted: Invitation = makeInvitation(workspace.id, { ...first, acceptedAt: Option.some(at(40)), acceptedBy: Option.some(user.id) })
        yield* repo.update(accepted)
        assert.deepStrictEqual(yield* repo.findByTokenDigest(first.tokenDigest), Option.some(accepted))
        const revoked = makeInvitation(workspace.id, { ...accepted, revokedAt: Option.some(at(50)) })
        yield* repo.update(makeInvitation(other.id, { ...revoked, workspaceId: other.id }))
        assert.deepStrictEqual(yield* repo.findById(workspace.id, first.id), Option.some(accepted))
        yield* repo.update(revoked)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, first.id), Option.some(revoked))
      }))

    it.effect("appearance: version 0 inserts once, later versions update only from the version read; a miss changes nothing", () =>
      Effect.gen(function*() {
        const repo = yield* AppearanceRepository
        const { workspace, user } = yield* seedOwned
        const stranger = yield* seedUser
        assert.isTrue(Option.isNone(yield* repo.get(workspace.id, user.id)))
        const v1 = makeAppearance(workspace.id, user.id, 1)
        assert.isTrue(yield* repo.put(v1, 0))
        assert.deepStrictEqual(yield* repo.get(workspace.id, user.id), Option.some(v1))
        assert.isFalse(yield* repo.put(makeAppearance(workspace.id, user.id, 1, "light"), 0))
        assert.isFalse(yield* repo.put(makeAppearance(workspace.id, user.id, 3, "light"), 2))
        assert.deepStrictEqual(yield* repo.get(workspace.id, user.id), Option.some(v1))
        const v2 = makeAppearance(workspace.id, user.id, 2, "light")
        assert.isTrue(yield* repo.put(v2, 1))
        assert.deepStrictEqual(yield* repo.get(workspace.id, user.id), Option.some(v2))
        // Expecting a stored version where none is stored must not create one.
        assert.isFalse(yield* repo.put(makeAppearance(workspace.id, stranger.id, 2), 1))
        assert.isTrue(Option.isNone(yield* repo.get(workspace.id, stranger.id)))
      }))

    it.effect("appearance compare-and-set under concurrency: of ten writers expecting one version exactly one wins", () =>
      Effect.gen(function*() {
        const repo = yield* AppearanceRepository
        const { workspace, user } = yield* seedOwned
        const race = (version: number) =>
          Effect.forEach(
            Array.from({ length: 10 }, (_, i) => makeAppearance(workspace.id, user.id, version, i % 2 === 0 ? "dark" : "light")),
            (next) => repo.put(next, version - 1).pipe(Effect.map((won) => ({ won, next }))),
            { concurrency: "unbounded" }
          )
        for (const version of [1, 2]) {
          const results = yield* race(version)
          const winners = results.filter((r) => r.won)
          assert.strictEqual(winners.length, 1)
          assert.deepStrictEqual(yield* repo.get(workspace.id, user.id), Option.fromNullishOr(winners[0]?.next))
        }
      }))
  })
