import { assert, describe, it } from "@effect/vitest"
import { Accounts, PasswordReset, Session } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { DateTime, Effect, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { lastMailTo, sendDue, tokenIn } from "../support/mail.ts"

const signUp = Effect.gen(function*() {
  const accounts = yield* Accounts
  const signed = yield* accounts.signUp({ email: `cache${Math.random()}@example.com`, password: Redacted.make("correct horse battery"), name: "C" })
  return signed.session
})

describe("verified-session cache (≤ 1 s)", () => {
  it.effect("serves a verified session from memory: the store is not asked again within the second", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { accessToken } = yield* signUp
      yield* accounts.authenticateSession(accessToken)
      yield* Ref.set((yield* MemoryStore).down, true)
      // Within the TTL the session is known without the store; past it, the outage shows (503, never a 401).
      assert.strictEqual((yield* accounts.authenticateSession(accessToken)).activeWorkspaceId.slice(0, 3), "ws_")
      yield* TestClock.adjust("1001 millis")
      assert.strictEqual((yield* Effect.flip(accounts.authenticateSession(accessToken)))._tag, "Unavailable")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("sign-out in this process drops the session at once", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { accessToken } = yield* signUp
      const session = yield* accounts.authenticateSession(accessToken)
      yield* accounts.signOut(session.id)
      const refused = yield* Effect.flip(accounts.authenticateSession(accessToken))
      assert.strictEqual(refused._tag === "SessionRejected" ? refused.code : refused._tag, "invalid_session")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a password reset in this process drops every session of the account at once", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const email = "reset-cache@example.com"
      const own = yield* accounts.signUp({ email, password: Redacted.make("correct horse battery"), name: "R" })
      const other = yield* accounts.signIn({ email, password: Redacted.make("correct horse battery") })
      for (const issued of [own.session, other.session]) yield* accounts.authenticateSession(issued.accessToken)
      yield* sendDue
      const reset = yield* PasswordReset
      yield* reset.request(email)
      yield* sendDue
      yield* reset.confirm(tokenIn((yield* lastMailTo(email))?.text ?? ""), Redacted.make("a brand new passphrase"))
      for (const issued of [own.session, other.session]) {
        const refused = yield* Effect.flip(accounts.authenticateSession(issued.accessToken))
        assert.strictEqual(refused._tag === "SessionRejected" ? refused.code : refused._tag, "invalid_session")
      }
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a revocation by another process (behind this cache) takes effect within 1 s", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { accessToken } = yield* signUp
      const session = yield* accounts.authenticateSession(accessToken)
      const store = yield* MemoryStore
      const now = yield* DateTime.now
      yield* Ref.update(store.state, (state) => ({
        ...state,
        sessions: new Map([...state.sessions].map(([id, s]) =>
          [id, id === session.id ? new Session({ ...s, revokedAt: Option.some(now), revokeReason: Option.some("revoked") }) : s] as const
        ))
      }))
      assert.strictEqual((yield* accounts.authenticateSession(accessToken)).id, session.id)
      yield* TestClock.adjust("1001 millis")
      assert.strictEqual((yield* Effect.flip(accounts.authenticateSession(accessToken)))._tag, "SessionRejected")
    }).pipe(Effect.provide(Domain.layerMemory)))
})
