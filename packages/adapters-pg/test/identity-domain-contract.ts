import {
  Accounts,
  Appearance,
  defaultAppearance,
  Invitations,
  Members,
  Organization,
  type Role,
  type SessionPrincipal,
  SessionRepository,
  type SignedUp,
  Unavailable,
  type WorkspaceId
} from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import type { Ports } from "../src/index.ts"
import { StorageProbe } from "./storage-probe.ts"
import { token } from "./fixtures.ts"

const password = Redacted.make("correct horse battery")

// The identity services over the Postgres ports under test; a fast password hasher stands in for Argon2id.
const domain = Domain.layerOver(Layer.empty)

/** Signs up a new person with a unique email and name (so a unique personal workspace slug). */
const signUp = (email = `${token()}@example.com`) =>
  Effect.flatMap(Accounts, (accounts) => accounts.signUp({ email, password, name: `Person ${token()}` }))

const principalOf = (session: SignedUp["session"]) => Effect.flatMap(Accounts, (accounts) => accounts.authenticate(session.accessToken))

/** A workspace with an owner; `join` adds a member with a role through a real invitation, acting in that workspace. */
const team = Effect.gen(function*() {
  const owner = yield* signUp()
  const ownerPrincipal: SessionPrincipal = yield* principalOf(owner.session)
  const join = Effect.fnUntraced(function*(role: Role) {
    const email = `${token()}@example.com`
    const invited = yield* (yield* Invitations).create(ownerPrincipal, { email, role })
    const user = yield* signUp(email)
    const accepted = yield* (yield* Invitations).accept(user.user.id, invited.token)
    const session = yield* (yield* Accounts).authenticateSession(user.session.accessToken)
    yield* (yield* Organization).switchActive(session, owner.workspace.id)
    const principal: SessionPrincipal = yield* principalOf(user.session)
    return { ...user, membership: accepted.membership, principal }
  })
  return { owner, ownerPrincipal, workspace: owner.workspace, join }
})



// Counted below the ports, so nothing a service returns can hide a row that stayed behind.
const rowCounts = Effect.gen(function*() {
  const probe = yield* StorageProbe
  return yield* Effect.forEach(["users", "workspaces", "memberships", "sessions", "audit_entries", "events"] as const, (store) => probe.count(store))
})

const ownersOf = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    return yield* (yield* StorageProbe).owners(workspaceId)
  })

/** Accounts, sessions, members, invitations and appearance end to end over one database target. */
export const identityDomainContract = <E>(label: string, target: Layer.Layer<Ports | StorageProbe, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`identity end to end on ${label}`, (it) => {
    it.effect("sign-up stores the user, a personal workspace, its owner membership and a session; sign-in finds them", () =>
      Effect.gen(function*() {
        const accounts = yield* Accounts
        const email = `${token()}@example.com`
        const signed = yield* signUp(`  ${email.toUpperCase()} `)
        // Stored with the local part as given, unique and found without case.
        assert.strictEqual(signed.user.email, `${email.split("@")[0]?.toUpperCase()}@example.com`)
        assert.strictEqual(signed.membership.role, "owner")
        const principal = yield* principalOf(signed.session)
        assert.deepStrictEqual([principal.userId, principal.workspaceId, principal.role], [signed.user.id, signed.workspace.id, "owner"])
        const signedIn = yield* accounts.signIn({ email: email.toUpperCase(), password, userAgent: "Atrium iOS/1.0" })
        assert.strictEqual(signedIn.user.id, signed.user.id)
        assert.strictEqual(signedIn.session.session.activeWorkspaceId, signed.workspace.id)
        const wrong = yield* accounts.signIn({ email, password: Redacted.make("wrong password!") }).pipe(Effect.flip)
        assert.strictEqual(wrong._tag, "InvalidCredentials")
        const before = yield* rowCounts
        const taken = yield* signUp(email).pipe(Effect.flip)
        assert.strictEqual(taken._tag, "EmailTaken")
        assert.deepStrictEqual(yield* rowCounts, before)
        const current = yield* accounts.authenticateSession(signedIn.session.accessToken)
        assert.deepStrictEqual((yield* accounts.listSessions(current)).map((s) => s.current).sort(), [false, true])
      }).pipe(Effect.provide(domain)))

    it.effect("a sign-up whose last step fails leaves no user, workspace, membership, session, audit entry or event", () => {
      // The Postgres ports, except that storing the session fails like a lost connection.
      const failingSessions = Layer.effect(
        SessionRepository,
        Effect.map(SessionRepository, (real) =>
          SessionRepository.of({ ...real, insert: () => Effect.fail(new Unavailable({ dependency: "database" })) }))
      )
      const broken = Domain.layerOver(Layer.empty, { replace: failingSessions })
      return Effect.gen(function*() {
        const before = yield* rowCounts
        const email = `${token()}@example.com`
        const error = yield* signUp(email).pipe(Effect.flip, Effect.provide(broken))
        assert.strictEqual(error._tag, "Unavailable")
        assert.deepStrictEqual(yield* rowCounts, before)
        // Nothing half-done blocks the address: the same sign-up succeeds once the database answers.
        const signed = yield* signUp(email).pipe(Effect.provide(domain))
        assert.strictEqual(signed.user.email, email)
      })
    })

    it.effect("refresh rotates; the old access token is session_expired; a reused refresh token revokes the session", () =>
      Effect.gen(function*() {
        const accounts = yield* Accounts
        const { session } = yield* signUp()
        const next = yield* accounts.refresh(session.refreshToken)
        assert.strictEqual(next.session.generation, 1)
        yield* accounts.authenticate(next.accessToken)
        assert.strictEqual((yield* accounts.authenticate(session.accessToken).pipe(Effect.flip)).code, "session_expired")
        const third = yield* accounts.refresh(next.refreshToken)
        yield* accounts.authenticate(third.accessToken)
        // Two rotations old, the first access token still belongs to a live session: session_expired, not invalid_session.
        assert.strictEqual((yield* accounts.authenticate(session.accessToken).pipe(Effect.flip)).code, "session_expired")
        const reused = yield* accounts.refresh(session.refreshToken).pipe(Effect.flip)
        assert.strictEqual(reused.code, "invalid_session")
        assert.strictEqual((yield* accounts.authenticate(third.accessToken).pipe(Effect.flip)).code, "invalid_session")
        assert.strictEqual((yield* accounts.refresh(third.refreshToken).pipe(Effect.flip)).code, "invalid_session")
        const stored = yield* (yield* SessionRepository).findById(session.session.id)
        assert.strictEqual(Option.getOrNull(Option.flatMap(stored, (s) => s.revokeReason)), "refresh_token_reused")
      }).pipe(Effect.provide(domain)))

    it.effect("no plaintext password or token is stored anywhere: only digests and the password's PHC string", () =>
      Effect.gen(function*() {
        const probe = yield* StorageProbe
        const { session, user } = yield* signUp()
        const next = yield* (yield* Accounts).refresh(session.refreshToken)
        const ownerPrincipal = yield* principalOf(next)
        const invited = yield* (yield* Invitations).create(ownerPrincipal, { email: `${token()}@example.com`, role: "member" })
        const secrets = [session.accessToken, session.refreshToken, next.accessToken, next.refreshToken, invited.token, password].map(Redacted.value)
        const stored = yield* probe.dump
        assert.include(stored, user.id)
        for (const secret of secrets) assert.notInclude(stored, secret)
        assert.match(yield* probe.passwordHash(user.id), /^\$/)
      }).pipe(Effect.provide(domain)))

    it.effect("concurrent refreshes with one token: one rotation, both callers get the same successor, the session lives", () =>
      Effect.gen(function*() {
        const accounts = yield* Accounts
        const sessions = yield* SessionRepository
        const signed = yield* Effect.forEach(Array.from({ length: 6 }), () => signUp())
        // Every pair at once, so on a real server the two refreshes of a pair run on different connections.
        const results = yield* Effect.forEach(
          signed,
          ({ session }) => Effect.all([accounts.refresh(session.refreshToken), accounts.refresh(session.refreshToken)], { concurrency: 2, mode: "result" }),
          { concurrency: "unbounded" }
        )
        for (const [index, pair] of results.entries()) {
          const won = pair.flatMap((r) => r._tag === "Success" ? [r.success] : [])
          assert.strictEqual(won.length, 2)
          const [a, b] = won
          if (a === undefined || b === undefined) return assert.fail("no winners")
          assert.strictEqual(Redacted.value(a.refreshToken), Redacted.value(b.refreshToken))
          assert.strictEqual(Redacted.value(a.accessToken), Redacted.value(b.accessToken))
          const id = signed[index]?.session.session.id
          if (id === undefined) return assert.fail("no session")
          const stored = yield* sessions.findById(id)
          assert.isTrue(Option.isNone(Option.flatMap(stored, (s) => s.revokedAt)))
          assert.deepStrictEqual(Option.map(stored, (s) => s.generation), Option.some(1))
          yield* accounts.authenticate(a.accessToken)
          yield* accounts.refresh(b.refreshToken)
        }
      }).pipe(Effect.provide(domain)))

    it.effect("two owners demoting or removing each other at once never leave a workspace without an owner", () =>
      Effect.gen(function*() {
        const members = yield* Members
        const teams = yield* Effect.forEach(Array.from({ length: 6 }), () =>
          Effect.gen(function*() {
            const t = yield* team
            const second = yield* t.join("owner")
            return { ...t, second }
          }))
        const results = yield* Effect.forEach(teams, (t, index) => {
          const [a, b] = index % 2 === 0
            ? [members.changeRole(t.ownerPrincipal, t.second.membership.id, "admin"), members.changeRole(t.second.principal, t.owner.membership.id, "admin")]
            : [members.remove(t.ownerPrincipal, t.second.membership.id), members.remove(t.second.principal, t.owner.membership.id)]
          return Effect.all([a, b], { concurrency: 2, mode: "result" })
        }, { concurrency: "unbounded" })
        for (const [index, pair] of results.entries()) {
          const workspaceId = teams[index]?.workspace.id
          if (workspaceId === undefined) return assert.fail("no team")
          assert.strictEqual(yield* ownersOf(workspaceId), 1)
          assert.strictEqual(pair.filter((r) => r._tag === "Success").length, 1)
          assert.deepStrictEqual(pair.flatMap((r) => r._tag === "Failure" ? [r.failure._tag] : []), ["Conflict"])
        }
      }).pipe(Effect.provide(domain)))

    it.effect("an invitation is accepted once: the member joins with its role; a second, concurrent acceptance is a Conflict", () =>
      Effect.gen(function*() {
        const invitations = yield* Invitations
        const { owner, ownerPrincipal, workspace } = yield* team
        const email = `${token()}@example.com`
        const invited = yield* invitations.create(ownerPrincipal, { email, role: "admin" })
        const stranger = yield* signUp()
        assert.strictEqual((yield* invitations.accept(stranger.user.id, invited.token).pipe(Effect.flip))._tag, "Forbidden")
        const invitee = yield* signUp(email)
        const results = yield* Effect.all(
          [invitations.accept(invitee.user.id, invited.token), invitations.accept(invitee.user.id, invited.token)],
          { concurrency: 2, mode: "result" }
        )
        const won = results.flatMap((r) => r._tag === "Success" ? [r.success] : [])
        assert.strictEqual(won.length, 1)
        assert.deepStrictEqual(results.flatMap((r) => r._tag === "Failure" ? [r.failure._tag] : []), ["Conflict"])
        assert.strictEqual(won[0]?.membership.role, "admin")
        assert.isTrue(Option.isSome(won[0]?.invitation.acceptedAt ?? Option.none()))
        const listed = yield* invitations.list(ownerPrincipal, { limit: 10, cursor: undefined })
        assert.deepStrictEqual(listed.data.map(({ invitation: i }) => [i.id, Option.getOrNull(i.acceptedBy)]), [[invited.invitation.id, invitee.user.id]])
        const page = yield* (yield* Members).list(ownerPrincipal, { limit: 10, cursor: undefined })
        assert.sameMembers(page.data.map((m) => [m.user.email, m.membership.role].join(" ")), [`${owner.user.email} owner`, `${email} admin`])
        assert.strictEqual(yield* ownersOf(workspace.id), 1)
      }).pipe(Effect.provide(domain)))

    it.effect("appearance PUTs racing on one version: exactly one wins, the others are PreconditionFailed", () =>
      Effect.gen(function*() {
        const appearance = yield* Appearance
        const { ownerPrincipal } = yield* team
        assert.strictEqual((yield* appearance.get(ownerPrincipal)).version, 0)
        const bundle = (theme: "light" | "dark") => ({ ...defaultAppearance, theme, extras: { who: theme } })
        const race = (ifMatch: Option.Option<number>) =>
          Effect.all(
            Array.from({ length: 6 }, (_, i) => appearance.put(ownerPrincipal, bundle(i % 2 === 0 ? "dark" : "light"), ifMatch)),
            { concurrency: "unbounded", mode: "result" }
          )
        const first = yield* race(Option.some(0))
        const won = first.flatMap((r) => r._tag === "Success" ? [r.success] : [])
        assert.strictEqual(won.length, 1)
        assert.deepStrictEqual(new Set(first.flatMap((r) => r._tag === "Failure" ? [r.failure._tag] : [])), new Set(["PreconditionFailed"]))
        const stored = yield* appearance.get(ownerPrincipal)
        assert.strictEqual(stored.version, 1)
        assert.deepStrictEqual(stored.bundle, won[0]?.bundle)
        // Without If-Match each write still goes through the compare-and-set: no two winners share a version.
        const second = yield* race(Option.none())
        const versions = second.flatMap((r) => r._tag === "Success" ? [r.success.version] : [])
        assert.isAtLeast(versions.length, 1)
        assert.strictEqual(new Set(versions).size, versions.length)
        assert.strictEqual((yield* appearance.get(ownerPrincipal)).version, 1 + versions.length)
      }).pipe(Effect.provide(domain)))
  })
