import { assert, describe, it } from "@effect/vitest"
import {
  Accounts,
  hasTokenShape,
  MembershipRepository,
  Members,
  parseApiKey,
  Unavailable
} from "@atrium/domain"
import { Domain, MemoryStore, PasswordHasherCalls } from "@atrium/domain/testing"
import { Effect, Layer, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { password, principalOf, signUp, team } from "../support/identity.ts"

const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
const down = Effect.flatMap(MemoryStore, (store) => Ref.set(store.down, true))
const up = Effect.flatMap(MemoryStore, (store) => Ref.set(store.down, false))

describe("Accounts: sign-up", () => {
  it.effect("creates the user, a personal workspace and its owner membership, with audit entries and member.joined", () =>
    Effect.gen(function*() {
      const { user, workspace, membership, session } = yield* signUp("  Ada@Example.COM ", "Ada Lovelace")
      // The local part as given (RFC 5321), the domain folded; sign-up, sign-in and uniqueness ignore the case.
      assert.strictEqual(user.email, "Ada@example.com")
      assert.isTrue(workspace.personal)
      assert.strictEqual(workspace.slug, "ada-lovelace")
      assert.strictEqual(membership.role, "owner")
      assert.strictEqual(membership.userId, user.id)
      assert.strictEqual(session.session.activeWorkspaceId, workspace.id)
      const s = yield* state
      assert.strictEqual(s.users.size, 1)
      assert.strictEqual(s.memberships.size, 1)
      assert.strictEqual(s.sessions.size, 1)
      // The verification link sign-up mails is audited too, in the new personal workspace, naming the account.
      assert.deepStrictEqual(s.audit.map((e) => [e.action, e.actor, e.workspaceId]), [
        ["workspace.created", { type: "user", id: user.id }, workspace.id],
        ["member.joined", { type: "user", id: user.id }, workspace.id],
        ["email_verification.requested", { type: "user", id: user.id }, workspace.id]
      ])
      assert.strictEqual(s.audit[2]?.target, user.id)
      assert.deepStrictEqual(s.events.map((e) => [e.type, e.data]), [["member.joined", { member: { id: membership.id, userId: user.id, role: "owner" } }]])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a second account of the same person gets a suffixed slug", () =>
    Effect.gen(function*() {
      yield* signUp("a@example.com", "Ada")
      const second = yield* signUp("b@example.com", "Ada")
      assert.match(second.workspace.slug, /^ada-[0-9a-z]{8}$/)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("normalises emails, so the same address in another case is email_taken", () =>
    Effect.gen(function*() {
      yield* signUp("ada@example.com")
      const error = yield* signUp(" ADA@example.com").pipe(Effect.flip)
      assert.strictEqual(error._tag, "EmailTaken")
      assert.strictEqual(error.code, "email_taken")
      assert.strictEqual((yield* state).workspaces.size, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("refuses malformed emails, empty names and passwords outside 10–256 characters", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const attempt = (email: string, secret: string, name = "Ada") =>
        accounts.signUp({ email, password: Redacted.make(secret), name }).pipe(Effect.flip, Effect.map((e) => e.code))
      assert.strictEqual(yield* attempt("not-an-email", "long enough pw"), "invalid_request")
      assert.strictEqual(yield* attempt("ada@example.com", "long enough pw", "   "), "invalid_request")
      assert.strictEqual(yield* attempt("ada@example.com", "123456789"), "invalid_request")
      assert.strictEqual(yield* attempt("ada@example.com", "x".repeat(257)), "invalid_request")
      yield* accounts.signUp({ email: "ada@example.com", password: Redacted.make("1234567890"), name: "Ada" })
      yield* accounts.signUp({ email: "bob@example.com", password: Redacted.make("é".repeat(256)), name: "Bob" })
      assert.strictEqual((yield* state).users.size, 2)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a failure anywhere in sign-up rolls back the user, the workspace and the audit entries", () => {
    // The memory ports, except that adding a membership fails like a lost connection.
    const failingMemberships = Layer.effect(
      MembershipRepository,
      Effect.map(MembershipRepository, (real) =>
        MembershipRepository.of({ ...real, insert: () => Effect.fail(new Unavailable({ dependency: "database" })) }))
    )
    const layer = Domain.layerMemoryWith({ replace: failingMemberships })
    return Effect.gen(function*() {
      const error = yield* signUp("ada@example.com").pipe(Effect.flip)
      assert.strictEqual(error._tag, "Unavailable")
      const s = yield* state
      assert.strictEqual(s.users.size, 0)
      assert.strictEqual(s.workspaces.size, 0)
      assert.strictEqual(s.sessions.size, 0)
      assert.strictEqual(s.audit.length, 0)
      assert.strictEqual(s.events.length, 0)
      // Nor is a verification link stored or mailed for an account that does not exist.
      assert.strictEqual(s.accountTokens.size, 0)
      assert.strictEqual(s.mailMessages.size, 0)
    }).pipe(Effect.provide(layer))
  })
})

describe("Accounts: sign-in", () => {
  it.effect("answers the same error for an unknown email and a wrong password, at the cost of one hash each", () =>
    Effect.gen(function*() {
      yield* signUp("ada@example.com")
      const accounts = yield* Accounts
      const calls = yield* PasswordHasherCalls
      yield* Ref.set(calls, [])
      const wrongPassword = yield* accounts.signIn({ email: "ada@example.com", password: Redacted.make("wrong password!") }).pipe(Effect.flip)
      const afterWrong = yield* Ref.getAndSet(calls, [])
      const unknownEmail = yield* accounts.signIn({ email: "nobody@example.com", password }).pipe(Effect.flip)
      const afterUnknown = yield* Ref.getAndSet(calls, [])
      const malformed = yield* accounts.signIn({ email: "nobody", password: Redacted.make("short") }).pipe(Effect.flip)
      const afterMalformed = yield* Ref.get(calls)
      assert.deepStrictEqual(wrongPassword, unknownEmail)
      assert.deepStrictEqual(unknownEmail, malformed)
      assert.strictEqual(wrongPassword.code, "invalid_credentials")
      assert.deepStrictEqual(afterWrong, ["verify"])
      assert.deepStrictEqual(afterUnknown, ["verifyDummy"])
      assert.deepStrictEqual(afterMalformed, ["verifyDummy"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("signs in with the email in any case and acts in the personal workspace", () =>
    Effect.gen(function*() {
      const { user, workspace } = yield* signUp("ada@example.com")
      const signedIn = yield* (yield* Accounts).signIn({ email: "ADA@example.com ", password, userAgent: "Atrium iOS/1.0" })
      assert.strictEqual(signedIn.user.id, user.id)
      assert.strictEqual(signedIn.session.session.activeWorkspaceId, workspace.id)
      assert.deepStrictEqual(signedIn.session.session.userAgent, Option.some("Atrium iOS/1.0"))
      const principal = yield* principalOf(signedIn.session)
      assert.strictEqual(principal.role, "owner")
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("Accounts: tokens", () => {
  it.effect("tokens are opaque, visibly not API keys, and stored only as digests", () =>
    Effect.gen(function*() {
      const { session } = yield* signUp("ada@example.com")
      const refreshed = yield* (yield* Accounts).refresh(session.refreshToken)
      const tokens = [session.accessToken, session.refreshToken, refreshed.accessToken, refreshed.refreshToken].map(Redacted.value)
      assert.match(tokens[0] ?? "", /^at_[0-9A-Za-z]{33}$/)
      assert.match(tokens[1] ?? "", /^rt_[0-9A-Za-z]{43}$/)
      assert.isTrue(hasTokenShape("access", session.accessToken))
      assert.isFalse(hasTokenShape("access", session.refreshToken))
      assert.isTrue(Option.isNone(parseApiKey(session.accessToken)))
      assert.strictEqual(new Set(tokens).size, 4)
      const s = yield* state
      const stored = JSON.stringify({
        sessions: Array.from(s.sessions.values()),
        retired: Array.from(s.retiredRefreshDigests),
        users: Array.from(s.users.values()),
        audit: s.audit,
        events: s.events
      })
      for (const token of tokens) assert.notInclude(stored, token)
      assert.notInclude(stored, Redacted.value(password))
      assert.notInclude(String(session.accessToken), tokens[0] ?? "-")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("refresh rotates both tokens; the old access token says session_expired, the new one works", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { session } = yield* signUp("ada@example.com")
      const next = yield* accounts.refresh(session.refreshToken)
      assert.strictEqual(next.session.id, session.session.id)
      assert.strictEqual(next.session.generation, 1)
      yield* accounts.authenticate(next.accessToken)
      const stale = yield* accounts.authenticate(session.accessToken).pipe(Effect.flip)
      assert.strictEqual(stale.code, "session_expired")
      const third = yield* accounts.refresh(next.refreshToken)
      yield* accounts.authenticate(third.accessToken)
      // Two rotations on, the first access token still belongs to a live session: refresh, do not sign out.
      assert.strictEqual((yield* accounts.authenticate(session.accessToken).pipe(Effect.flip)).code, "session_expired")
      assert.strictEqual((yield* accounts.authenticateSession(next.accessToken).pipe(Effect.flip)).code, "session_expired")
      // Once the session ends, every one of its access tokens is invalid_session.
      yield* accounts.signOut(session.session.id)
      for (const token of [session.accessToken, next.accessToken, third.accessToken]) {
        assert.strictEqual((yield* accounts.authenticate(token).pipe(Effect.flip)).code, "invalid_session")
      }
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the just-rotated refresh token, presented again within 30 seconds, answers with the same successor", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { session } = yield* signUp("ada@example.com")
      const next = yield* accounts.refresh(session.refreshToken)
      // A lost response: the phone retries with the token it still holds.
      yield* TestClock.adjust("29 seconds")
      const again = yield* accounts.refresh(session.refreshToken)
      assert.strictEqual(Redacted.value(again.accessToken), Redacted.value(next.accessToken))
      assert.strictEqual(Redacted.value(again.refreshToken), Redacted.value(next.refreshToken))
      assert.deepStrictEqual(again.accessTokenExpiresAt, next.accessTokenExpiresAt)
      assert.strictEqual(again.session.generation, 1)
      yield* accounts.authenticate(again.accessToken)
      const third = yield* accounts.refresh(again.refreshToken)
      yield* accounts.authenticate(third.accessToken)
      // Within the leeway, but not the token just rotated away: two rotations old is reuse.
      const stale = yield* accounts.refresh(session.refreshToken).pipe(Effect.flip)
      assert.strictEqual(stale.code, "invalid_session")
      assert.deepStrictEqual((yield* state).sessions.get(session.session.id)?.revokeReason, Option.some("refresh_token_reused"))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("presenting a used refresh token after the leeway revokes the whole session (RFC 9700 reuse detection)", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { session } = yield* signUp("ada@example.com")
      const next = yield* accounts.refresh(session.refreshToken)
      yield* TestClock.adjust("31 seconds")
      const reused = yield* accounts.refresh(session.refreshToken).pipe(Effect.flip)
      assert.strictEqual(reused.code, "invalid_session")
      // The legitimate holder's newer tokens die with the session: an attacker may hold them.
      assert.strictEqual((yield* accounts.authenticate(next.accessToken).pipe(Effect.flip)).code, "invalid_session")
      assert.strictEqual((yield* accounts.refresh(next.refreshToken).pipe(Effect.flip)).code, "invalid_session")
      const stored = (yield* state).sessions.get(session.session.id)
      assert.deepStrictEqual(stored?.revokeReason, Option.some("refresh_token_reused"))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("two concurrent refreshes with one token both get the same successor; the session lives", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { session } = yield* signUp("ada@example.com")
      const [a, b] = yield* Effect.all([accounts.refresh(session.refreshToken), accounts.refresh(session.refreshToken)], {
        concurrency: 2
      })
      assert.strictEqual(Redacted.value(a.refreshToken), Redacted.value(b.refreshToken))
      assert.strictEqual(Redacted.value(a.accessToken), Redacted.value(b.accessToken))
      const stored = (yield* state).sessions.get(session.session.id)
      assert.isTrue(stored !== undefined && Option.isNone(stored.revokedAt))
      assert.strictEqual(stored?.generation, 1)
      yield* accounts.authenticate(a.accessToken)
      yield* accounts.refresh(b.refreshToken)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("access tokens expire after 15 minutes (session_expired), refresh tokens after 30 days (invalid_session)", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { session } = yield* signUp("ada@example.com")
      yield* TestClock.adjust("14 minutes")
      yield* accounts.authenticate(session.accessToken)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* accounts.authenticate(session.accessToken).pipe(Effect.flip)).code, "session_expired")
      const next = yield* accounts.refresh(session.refreshToken)
      yield* accounts.authenticate(next.accessToken)
      // The refresh token slides: 30 days from its rotation.
      yield* TestClock.adjust("29 days")
      const later = yield* accounts.refresh(next.refreshToken)
      yield* TestClock.adjust("30 days")
      assert.strictEqual((yield* accounts.refresh(later.refreshToken).pipe(Effect.flip)).code, "invalid_session")
      assert.strictEqual((yield* accounts.authenticate(later.accessToken).pipe(Effect.flip)).code, "invalid_session")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("unknown, malformed, missing, swapped and signed-out tokens are invalid_session (missing: missing_credentials)", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { session } = yield* signUp("ada@example.com")
      const code = (token: string) => accounts.authenticate(Redacted.make(token)).pipe(Effect.flip, Effect.map((e) => e.code))
      assert.strictEqual(yield* code(""), "missing_credentials")
      assert.strictEqual(yield* code("at_short"), "invalid_session")
      assert.strictEqual(yield* code(`at_${"A".repeat(33)}`), "invalid_session")
      assert.strictEqual(yield* code(Redacted.value(session.refreshToken)), "invalid_session")
      assert.strictEqual((yield* accounts.refresh(session.accessToken).pipe(Effect.flip)).code, "invalid_session")
      yield* accounts.signOut(session.session.id)
      assert.strictEqual(yield* code(Redacted.value(session.accessToken)), "invalid_session")
      assert.strictEqual((yield* accounts.refresh(session.refreshToken).pipe(Effect.flip)).code, "invalid_session")
      // Even an expired access token of a signed-out session must not invite a refresh.
      yield* TestClock.adjust("16 minutes")
      assert.strictEqual(yield* code(Redacted.value(session.accessToken)), "invalid_session")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a database that is down answers Unavailable, never a rejection, for authenticate, refresh and sign-in", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { session } = yield* signUp("ada@example.com")
      yield* down
      assert.strictEqual((yield* accounts.authenticate(session.accessToken).pipe(Effect.flip))._tag, "Unavailable")
      assert.strictEqual((yield* accounts.authenticateSession(session.accessToken).pipe(Effect.flip))._tag, "Unavailable")
      assert.strictEqual((yield* accounts.refresh(session.refreshToken).pipe(Effect.flip))._tag, "Unavailable")
      assert.strictEqual((yield* accounts.signIn({ email: "ada@example.com", password }).pipe(Effect.flip))._tag, "Unavailable")
      yield* up
      // Nothing was consumed while it was down: the same refresh token still rotates.
      yield* accounts.refresh(session.refreshToken)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("lists own live sessions and revokes one; another user's session is not found", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const first = yield* signUp("ada@example.com")
      const second = yield* accounts.signIn({ email: "ada@example.com", password })
      const other = yield* signUp("bob@example.com")
      const current = yield* accounts.authenticateSession(second.session.accessToken)
      const listed = yield* accounts.listSessions(current)
      assert.strictEqual(listed.length, 2)
      assert.deepStrictEqual(listed.filter((s) => s.current).map((s) => s.id), [second.session.session.id])
      assert.notInclude(JSON.stringify(listed), current.accessDigest)
      const foreign = yield* accounts.revokeSession(other.user.id, first.session.session.id).pipe(Effect.flip)
      assert.strictEqual(foreign._tag, "NotFound")
      yield* accounts.revokeSession(first.user.id, first.session.session.id)
      assert.strictEqual((yield* accounts.authenticate(first.session.accessToken).pipe(Effect.flip)).code, "invalid_session")
      assert.strictEqual((yield* accounts.listSessions(current)).length, 1)
      assert.strictEqual((yield* accounts.current(current)).email, "ada@example.com")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a member removed from the active workspace fails closed with forbidden, and the session stays valid", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      yield* (yield* Members).remove(ownerPrincipal, bob.membership.id)
      const error = yield* accounts.authenticate(bob.session.accessToken).pipe(Effect.flip)
      assert.strictEqual(error._tag, "Forbidden")
      yield* accounts.authenticateSession(bob.session.accessToken)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
