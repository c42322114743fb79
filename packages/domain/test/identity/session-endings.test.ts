import { assert, describe, it } from "@effect/vitest"
import {
  Accounts,
  ChangeLog,
  Invitations,
  type IssuedSession,
  PasswordReset,
  PushNotifications,
  PushSender,
  SessionRevokeReason,
  sessionEnded,
  Transactor,
  type UserId
} from "@atrium/domain"
import { Domain, MemoryStore, PushServiceMemory, PushServiceScript } from "@atrium/domain/testing"
import { Effect, Layer, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { password, principalOf, signUp, team } from "../support/identity.ts"
import { lastMailTo, sendDue, tokenIn } from "../support/mail.ts"

const withPush = Domain.layerMemory.pipe(Layer.provideMerge(PushServiceMemory))
const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
const registration = (n: number) => ({ expoPushToken: Redacted.make(`ExponentPushToken[device${n}xxxxxxxxxxxxxxx]`), platform: "ios" as const, appVersion: "3.0.0", locale: "en" })

// Read from the store, not through a session: the user's sessions are the ones that ended.
const devicesOf = (userId: UserId) => state.pipe(Effect.map((s) => Array.from(s.pushDevices.values()).filter((d) => d.userId === userId)))
const auditOf = (action: string) => state.pipe(Effect.map((s) => s.audit.filter((entry) => entry.action === action)))

// Bob, a member of the owner's team, signed in on his phone and (unknown to him) on an intruder's phone, both registered.
const takenOverBob = Effect.gen(function*() {
  const { ownerPrincipal } = yield* team
  const push = yield* PushNotifications
  const own = yield* signUp("bob@example.com", "Bob")
  const intruder = yield* (yield* Accounts).signIn({ email: "bob@example.com", password })
  const bob = yield* principalOf(own.session)
  yield* push.register(bob, "bob-phone", registration(1))
  yield* push.register(yield* principalOf(intruder.session), "intruder-phone", registration(2))
  assert.strictEqual((yield* devicesOf(bob.userId)).length, 2)
  // An invitation to Bob is a push to every device of his.
  const invite = (yield* Invitations).create(ownerPrincipal, { email: "bob@example.com", role: "member" })
  return { bob, own: own.session, intruder: intruder.session, invite }
})

// Sends whatever is queued, as the push worker would, and answers what reached the push service.
const pushedToService = Effect.gen(function*() {
  const sender = yield* PushSender
  for (const batch of yield* sender.sendQueue.claim(10)) yield* sender.sendQueue.step(batch)
  return (yield* Ref.get((yield* PushServiceScript).sent)).flat()
})

describe("a session that ends takes its push devices with it", () => {
  it.effect("a password reset records each session it ends, drops every device of the account, and a push reaches none", () =>
    Effect.gen(function*() {
      const { bob, own, intruder, invite } = yield* takenOverBob
      const carol = yield* principalOf((yield* signUp("carol@example.com", "Carol")).session)
      yield* (yield* PushNotifications).register(carol, "carol-phone", registration(3))
      const reset = yield* PasswordReset
      yield* sendDue // the sign-up's verification mail goes first, so the last one to Bob is the reset link
      yield* reset.request("bob@example.com")
      yield* sendDue
      yield* reset.confirm(tokenIn((yield* lastMailTo("bob@example.com"))?.text ?? ""), Redacted.make("a brand new passphrase"))

      const ended = yield* auditOf("session.password_reset")
      assert.sameMembers(ended.map((entry) => entry.target), [own.session.id, intruder.session.id])
      assert.isTrue(ended.every((entry) => entry.actor.type === "user" && entry.actor.id === bob.userId))
      assert.deepStrictEqual(yield* devicesOf(bob.userId), [])
      assert.strictEqual((yield* devicesOf(carol.userId)).length, 1, "another account's device stays")
      yield* invite
      assert.strictEqual((yield* state).pushMessages.size, 0)
      assert.deepStrictEqual(yield* pushedToService, [])
    }).pipe(Effect.provide(withPush)))

  it.effect("a reused refresh token records the session's end and drops its devices; a push reaches none", () =>
    Effect.gen(function*() {
      const { bob, own, intruder, invite } = yield* takenOverBob
      const accounts = yield* Accounts
      // A session rotates; its old refresh token, presented again after the leeway, is reuse and ends it.
      const reuse = (issued: IssuedSession) =>
        Effect.gen(function*() {
          yield* accounts.refresh(issued.refreshToken)
          yield* TestClock.adjust("31 seconds")
          assert.strictEqual((yield* accounts.refresh(issued.refreshToken).pipe(Effect.flip)).code, "invalid_session")
        })
      yield* reuse(own)
      const ended = yield* auditOf("session.refresh_token_reused")
      assert.deepStrictEqual(ended.map((entry) => [entry.target, entry.actor.type]), [[own.session.id, "system"]])
      assert.deepStrictEqual((yield* devicesOf(bob.userId)).map((d) => d.sessionId), [intruder.session.id], "only the reused session's device goes")
      yield* reuse(intruder)
      assert.deepStrictEqual(yield* devicesOf(bob.userId), [])
      yield* invite
      assert.strictEqual((yield* state).pushMessages.size, 0)
      assert.deepStrictEqual(yield* pushedToService, [])
    }).pipe(Effect.provide(withPush)))

  it.effect("every revoke reason the session model knows drops the session's devices", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const push = yield* PushNotifications
      const { user } = yield* signUp("erin@example.com", "Erin")
      for (const [n, reason] of SessionRevokeReason.literals.entries()) {
        const { session } = yield* accounts.signIn({ email: "erin@example.com", password })
        yield* push.register(yield* principalOf(session), `device-${n}`, registration(10 + n))
        // Recorded as any revoker would: through the change log, in a transaction.
        const recordEnd = Effect.flatMap(ChangeLog, (changes) => changes.record(sessionEnded(session.session, reason)))
        yield* (yield* Transactor).withTransaction(recordEnd)
        assert.isFalse((yield* devicesOf(user.id)).some((d) => d.sessionId === session.session.id), reason)
      }
    }).pipe(Effect.provide(withPush)))
})
