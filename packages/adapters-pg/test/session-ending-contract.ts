import {
  Accounts,
  AuditLog,
  Invitations,
  type IssuedSession,
  MailRepository,
  PasswordReset,
  PushDeviceRepository,
  PushNotifications,
  PushSender,
  SecretBox,
  type SessionPrincipal,
  type UserId,
  type WorkspaceId
} from "@atrium/domain"
import { Domain, PushServiceMemory, PushServiceScript } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Ref } from "effect"
import type { Ports } from "../src/index.ts"
import { token } from "./fixtures.ts"

const password = Redacted.make("correct horse battery")

// Accounts and push over the ports under test, with push turned on (the push service itself is the domain's fake).
const domain = Domain.layerOver(Layer.empty, { replace: PushServiceMemory })

const registration = () => ({ expoPushToken: Redacted.make(`ExponentPushToken[${token()}]`), platform: "android" as const, appVersion: "3.0.0", locale: "en" })
const principalOf = (session: IssuedSession) => Effect.flatMap(Accounts, (accounts) => accounts.authenticate(session.accessToken))
const devicesOf = (userId: UserId) => Effect.flatMap(PushDeviceRepository, (devices) => devices.listByUser(userId))

// The workspace's audit entries with `action`, by target.
const endedIn = (workspaceId: WorkspaceId, action: string) =>
  Effect.gen(function*() {
    const page = yield* (yield* AuditLog).list(workspaceId, { limit: 100, cursor: undefined })
    return page.data.filter((entry) => entry.action === action)
  })

// The newest reset link mailed to `to`, opened as the recipient's mail client would see it.
const resetToken = (to: string) =>
  Effect.gen(function*() {
    const messages = yield* (yield* MailRepository).listByRecipient(to, 20)
    const sealed = messages.find((m) => m.content.template === "password_reset")?.sealedToken ?? Option.none()
    if (Option.isNone(sealed)) return yield* Effect.die(`no reset message to ${to}`)
    return yield* (yield* SecretBox).open(sealed.value)
  })

// An owner who can invite, and a person signed in twice (their phone, an intruder's phone), each with a device.
const takenOver = Effect.gen(function*() {
  const accounts = yield* Accounts
  const push = yield* PushNotifications
  const owner: SessionPrincipal = yield* principalOf((yield* accounts.signUp({ email: `${token()}@example.com`, password, name: `Owner ${token()}` })).session)
  const email = `${token()}@example.com`
  const signedUp = yield* accounts.signUp({ email, password, name: `Person ${token()}` })
  const intruder = (yield* accounts.signIn({ email, password })).session
  yield* push.register(yield* principalOf(signedUp.session), "own-phone", registration())
  yield* push.register(yield* principalOf(intruder), "intruder-phone", registration())
  assert.strictEqual((yield* devicesOf(signedUp.user.id)).length, 2)
  // An invitation is a push to every device of the invitee.
  const invite = (yield* Invitations).create(owner, { email, role: "member" })
  return { email, user: signedUp.user, workspace: signedUp.workspace, own: signedUp.session, intruder, invite }
})

// Invites the person, then sends what was queued as the push worker would: the messages that reached the push service.
const pushedAfter = (invite: Effect.Effect<unknown, unknown>, userId: UserId) =>
  Effect.gen(function*() {
    yield* invite
    const sender = yield* PushSender
    for (const batch of yield* sender.sendQueue.claim(100)) yield* sender.sendQueue.step(batch)
    return (yield* Ref.get((yield* PushServiceScript).sent)).flat().filter((push) => push.message.userId === userId)
  })

/** Every way a session ends is a recorded change, so its push devices go with it, over one storage target. */
export const sessionEndingContract = <E>(label: string, target: Layer.Layer<Ports, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`session endings and push devices on ${label}`, (it) => {
    it.effect("a password reset records the end of every session, their devices are gone and a push reaches none", () =>
      Effect.gen(function*() {
        const { email, user, workspace, own, intruder, invite } = yield* takenOver
        const reset = yield* PasswordReset
        yield* reset.request(email)
        yield* Effect.forEach(yield* reset.requestQueue.claim(100), reset.requestQueue.step)
        yield* reset.confirm(yield* resetToken(email), Redacted.make("a brand new passphrase"))

        const ended = yield* endedIn(workspace.id, "session.password_reset")
        assert.sameMembers(ended.map((entry) => entry.target), [own.session.id, intruder.session.id])
        assert.deepStrictEqual(yield* devicesOf(user.id), [])
        assert.deepStrictEqual(yield* pushedAfter(invite, user.id), [])
      }).pipe(Effect.provide(domain)))

    it.effect("a reused refresh token records the end of its session, whose device is gone; a push reaches none once both end", () =>
      Effect.gen(function*() {
        const { user, workspace, own, intruder, invite } = yield* takenOver
        const accounts = yield* Accounts
        // Two rotations on, the first refresh token is reuse even within the leeway: the session ends.
        const reuse = (issued: IssuedSession) =>
          Effect.gen(function*() {
            const next = yield* accounts.refresh(issued.refreshToken)
            yield* accounts.refresh(next.refreshToken)
            assert.strictEqual((yield* accounts.refresh(issued.refreshToken).pipe(Effect.flip)).code, "invalid_session")
          })
        yield* reuse(intruder)
        const ended = yield* endedIn(workspace.id, "session.refresh_token_reused")
        assert.deepStrictEqual(ended.map((entry) => [entry.target, entry.actor.type]), [[intruder.session.id, "system"]])
        assert.deepStrictEqual((yield* devicesOf(user.id)).map((device) => device.sessionId), [own.session.id])
        yield* reuse(own)
        assert.deepStrictEqual(yield* devicesOf(user.id), [])
        assert.deepStrictEqual(yield* pushedAfter(invite, user.id), [])
      }).pipe(Effect.provide(domain)))
  })
