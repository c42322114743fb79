import { assert, describe, it } from "@effect/vitest"
import {
  Accounts,
  AiTasks,
  ApiKeyId,
  ApiKeyPrincipal,
  Entitlements,
  Feature,
  Invitations,
  PushDevice,
  PushNotifications,
  PushSender,
  PushServiceError,
  type PushMessage,
  Usage
} from "@atrium/domain"
import { Domain, MemoryStore, PushServiceMemory, PushServiceScript, systemPrincipal } from "@atrium/domain/testing"
import { Effect, Layer, Logger, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { password, principalOf, signUp, team } from "../support/identity.ts"

const withPush = Domain.layerMemory.pipe(Layer.provideMerge(PushServiceMemory))
const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
const token = (n: number) => `ExponentPushToken[device${n}xxxxxxxxxxxxxxx]`
const registration = (n: number) => ({ expoPushToken: Redacted.make(token(n)), platform: "android" as const, appVersion: "2.1.0", locale: "de-DE" })
const messages = state.pipe(Effect.map((s): ReadonlyArray<PushMessage> => Array.from(s.pushMessages.values())))

const sendAll = Effect.gen(function*() {
  const sender = yield* PushSender
  for (const batch of yield* sender.sendQueue.claim(10)) yield* sender.sendQueue.step(batch)
})
const checkReceipts = Effect.gen(function*() {
  const sender = yield* PushSender
  for (const batch of yield* sender.receiptQueue.claim(10)) yield* sender.receiptQueue.step(batch)
})

// Every log line the domain writes, as JSON, for the test to read back.
const captured = () => {
  const lines: Array<string> = []
  const logger = Logger.formatJson.pipe(Logger.map((line) => {
    lines.push(line)
  }))
  return { lines, layer: Logger.layer([logger]) }
}
const removals = (lines: ReadonlyArray<string>) => lines.filter((line) => line.includes("push device removed"))

// Bob has a phone registered; an invitation to him is a push to it.
const bobWithPhone = Effect.gen(function*() {
  const { ownerPrincipal } = yield* team
  const bob = yield* principalOf((yield* signUp("bob@example.com")).session)
  yield* (yield* PushNotifications).register(bob, "bob-phone", registration(7))
  const invite = (yield* Invitations).create(ownerPrincipal, { email: "bob@example.com", role: "member" })
  return { bob, invite }
})

describe("Push devices", () => {
  it.effect("a token registered by another user moves to them; each user sees only their own devices", () =>
    Effect.gen(function*() {
      const push = yield* PushNotifications
      const ada = yield* principalOf((yield* signUp("ada@example.com")).session)
      const bob = yield* principalOf((yield* signUp("bob@example.com")).session)
      yield* push.register(ada, "shared-tablet", registration(1))
      yield* push.register(bob, "shared-tablet", registration(1))
      assert.deepStrictEqual((yield* push.devices(ada)).length, 0)
      assert.deepStrictEqual((yield* push.devices(bob)).map((d) => Redacted.value(d.expoPushToken)), [token(1)])
      // Ada cannot remove Bob's device by naming its installation.
      yield* push.unregister(ada, "shared-tablet")
      assert.strictEqual((yield* push.devices(bob)).length, 1)
    }).pipe(Effect.provide(withPush)))

  it.effect("a token the server key cannot open (the key was replaced) leaves that device out of the list until it registers again", () =>
    Effect.gen(function*() {
      const push = yield* PushNotifications
      const ada = yield* principalOf((yield* signUp("ada@example.com")).session)
      yield* push.register(ada, "phone", registration(1))
      yield* push.register(ada, "tablet", registration(2))
      // The phone's token as another key sealed it: this box cannot open it.
      const store = yield* MemoryStore
      yield* Ref.update(store.state, (s) => ({
        ...s,
        pushDevices: new Map(Array.from(s.pushDevices, ([id, device]) =>
          [id, device.installationId === "phone" ? new PushDevice({ ...device, sealedToken: "v1.c2VhbGVkLWJ5LWFub3RoZXIta2V5" }) : device]))
      }))
      assert.deepStrictEqual((yield* push.devices(ada)).map((d) => d.device.installationId), ["tablet"])
      yield* push.register(ada, "phone", registration(1))
      assert.deepStrictEqual((yield* push.devices(ada)).map((d) => d.device.installationId).sort(), ["phone", "tablet"])
    }).pipe(Effect.provide(withPush)))

  it.effect("registering again updates the device in place", () =>
    Effect.gen(function*() {
      const push = yield* PushNotifications
      const ada = yield* principalOf((yield* signUp("ada@example.com")).session)
      const first = yield* push.register(ada, "phone", registration(1))
      const again = yield* push.register(ada, "phone", { ...registration(2), appVersion: "2.2.0" })
      assert.strictEqual(again.device.id, first.device.id)
      assert.deepStrictEqual((yield* push.devices(ada)).map((d) => [Redacted.value(d.expoPushToken), d.device.appVersion]), [[token(2), "2.2.0"]])
    }).pipe(Effect.provide(withPush)))

  it.effect("signing out removes the session's devices; another session's stay", () =>
    Effect.gen(function*() {
      const push = yield* PushNotifications
      const accounts = yield* Accounts
      const phone = yield* principalOf((yield* signUp("ada@example.com")).session)
      const tablet = yield* principalOf((yield* accounts.signIn({ email: "ada@example.com", password })).session)
      yield* push.register(phone, "phone", registration(1))
      yield* push.register(tablet, "tablet", registration(2))
      yield* accounts.signOut(phone.sessionId)
      assert.deepStrictEqual((yield* push.devices(tablet)).map((d) => d.device.installationId), ["tablet"])
      yield* accounts.revokeSession(tablet.userId, tablet.sessionId)
      assert.strictEqual((yield* state).pushDevices.size, 0)
    }).pipe(Effect.provide(withPush)))

  it.effect("preferences default to on and are per user", () =>
    Effect.gen(function*() {
      const push = yield* PushNotifications
      const ada = yield* principalOf((yield* signUp("ada@example.com")).session)
      const bob = yield* principalOf((yield* signUp("bob@example.com")).session)
      assert.isTrue((yield* push.preferences(ada)).invitations)
      yield* push.setPreferences(ada, { ai_tasks: false, invitations: false, feature_requests: true, billing: true, schedules: true })
      assert.isFalse((yield* push.preferences(ada)).invitations)
      assert.isTrue((yield* push.preferences(bob)).invitations)
    }).pipe(Effect.provide(withPush)))
})

describe("Push notices of finished AI tasks", () => {
  it.effect("a task a user submitted is a push to their phone when it finishes; one an API key submitted, settled beside it, is none", () =>
    Effect.gen(function*() {
      const { owner, ownerPrincipal, workspace } = yield* team
      yield* (yield* PushNotifications).register(ownerPrincipal, "owner-phone", registration(3))
      yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "trial" })
      yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), 1_000_000)
      const tasks = yield* AiTasks
      const input = { model: "atrium-local-1", input: { prompt: "hello" }, maxOutputTokens: 1 }
      const key = new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_test"), workspaceId: workspace.id, scopes: ["ai_tasks:write"] })
      const byKey = yield* tasks.submit(key, input)
      const byOwner = yield* tasks.submit(ownerPrincipal, input)
      // Run at once, so both settle in one batch and their notices are worked out together.
      yield* Effect.forEach(yield* tasks.claim(10), tasks.execute, { concurrency: "unbounded" })
      const sent = yield* messages
      assert.deepStrictEqual(
        sent.map((message) => [message.userId, message.title, message.data.taskId]),
        [[owner.user.id, "AI task finished", byOwner.task.id]]
      )
      assert.notStrictEqual(byKey.task.id, byOwner.task.id)
    }).pipe(Effect.provide(withPush)))
})

describe("Push sender", () => {
  it.effect("sends one batch, then reads the receipt: delivered", () =>
    Effect.gen(function*() {
      const { invite } = yield* bobWithPhone
      yield* invite
      yield* sendAll
      const script = yield* PushServiceScript
      assert.strictEqual((yield* Ref.get(script.sent)).flat().length, 1)
      const [sent] = yield* messages
      assert.strictEqual(sent?.status, "sent")
      yield* Ref.set(script.receipts, new Map([[`ticket-${sent?.id}`, { status: "ok" }]]))
      yield* checkReceipts
      assert.strictEqual((yield* messages)[0]?.status, "sent", "the receipt is asked for only after ~15 minutes")
      yield* TestClock.adjust("16 minutes")
      yield* checkReceipts
      assert.strictEqual((yield* messages)[0]?.status, "delivered")
    }).pipe(Effect.provide(withPush)))

  it.effect("DeviceNotRegistered on a ticket removes the token at once", () =>
    Effect.gen(function*() {
      const { bob, invite } = yield* bobWithPhone
      yield* invite
      const script = yield* PushServiceScript
      yield* Ref.set(script.sendAnswers, [(batch) => batch.map(() => ({ status: "error" as const, error: "DeviceNotRegistered" }))])
      yield* sendAll
      assert.strictEqual((yield* messages)[0]?.status, "failed")
      assert.deepStrictEqual(yield* (yield* PushNotifications).devices(bob), [])
    }).pipe(Effect.provide(withPush)))

  it.effect("DeviceNotRegistered in a receipt removes the token", () =>
    Effect.gen(function*() {
      const { bob, invite } = yield* bobWithPhone
      yield* invite
      yield* sendAll
      const [sent] = yield* messages
      const script = yield* PushServiceScript
      yield* Ref.set(script.receipts, new Map([[`ticket-${sent?.id}`, { status: "error", error: "DeviceNotRegistered" }]]))
      yield* TestClock.adjust("16 minutes")
      yield* checkReceipts
      assert.strictEqual((yield* messages)[0]?.status, "failed")
      assert.deepStrictEqual(yield* (yield* PushNotifications).devices(bob), [])
    }).pipe(Effect.provide(withPush)))

  it.effect("a 429 puts the batch back with backoff (honouring Retry-After); it is sent when due", () =>
    Effect.gen(function*() {
      const { invite } = yield* bobWithPhone
      yield* invite
      const script = yield* PushServiceScript
      yield* Ref.set(script.sendAnswers, [new PushServiceError({ reason: "rate_limited", detail: "429", retryAfterSeconds: 30 })])
      yield* sendAll
      const [waiting] = yield* messages
      assert.strictEqual(waiting?.status, "pending")
      assert.strictEqual(waiting?.attempts, 1)
      assert.isTrue(Option.isSome(waiting?.lastError ?? Option.none()))
      yield* sendAll
      assert.strictEqual((yield* Ref.get(script.sent)).length, 1, "not due again before Retry-After")
      yield* TestClock.adjust("31 seconds")
      yield* sendAll
      assert.strictEqual((yield* messages)[0]?.status, "sent")
    }).pipe(Effect.provide(withPush)))

  it.effect("a push queued for a session that then signs out is never sent", () =>
    Effect.gen(function*() {
      const { bob, invite } = yield* bobWithPhone
      yield* invite
      assert.strictEqual((yield* messages).length, 1)
      yield* (yield* Accounts).signOut(bob.sessionId)
      assert.deepStrictEqual(yield* messages, [])
      yield* sendAll
      assert.deepStrictEqual(yield* Ref.get((yield* PushServiceScript).sent), [])
    }).pipe(Effect.provide(withPush)))

  it.effect("a message is given up after the last attempt", () =>
    Effect.gen(function*() {
      const { invite } = yield* bobWithPhone
      yield* invite
      const script = yield* PushServiceScript
      yield* Ref.set(script.sendAnswers, Array.from({ length: 8 }, () => new PushServiceError({ reason: "unavailable", detail: "503", retryAfterSeconds: null })))
      for (let n = 0; n < 8; n++) {
        yield* sendAll
        yield* TestClock.adjust("2 hours")
      }
      const [last] = yield* messages
      assert.strictEqual(last?.status, "failed")
      assert.strictEqual(last?.attempts, 8)
    }).pipe(Effect.provide(withPush)))

  it.effect("each removed device is one log line with its id and why, never its token", () => {
    const log = captured()
    return Effect.gen(function*() {
      const push = yield* PushNotifications
      const accounts = yield* Accounts
      const phone = yield* principalOf((yield* signUp("ada@example.com")).session)
      const tablet = yield* principalOf((yield* accounts.signIn({ email: "ada@example.com", password })).session)
      const registered = yield* push.register(phone, "phone", registration(1))
      yield* push.register(phone, "watch", registration(3))
      const tabletDevice = yield* push.register(tablet, "tablet", registration(2))
      yield* push.unregister(phone, "watch")
      yield* push.unregister(phone, "watch")
      yield* accounts.signOut(phone.sessionId)
      const lines = removals(log.lines)
      assert.strictEqual(lines.length, 2)
      assert.include(lines[0], "\"reason\":\"unregistered\"")
      assert.include(lines[1], registered.device.id)
      assert.include(lines[1], "\"reason\":\"session_ended\"")
      assert.notInclude(lines.join("\n"), tabletDevice.device.id)
      for (const line of log.lines) for (const n of [1, 2, 3]) assert.notInclude(line, `device${n}x`)
    }).pipe(Effect.provide(withPush), Effect.provide(log.layer))
  })

  it.effect("a dead token's device is logged as removed, without the token", () => {
    const log = captured()
    return Effect.gen(function*() {
      const { invite } = yield* bobWithPhone
      yield* invite
      const script = yield* PushServiceScript
      yield* Ref.set(script.sendAnswers, [(batch) => batch.map(() => ({ status: "error" as const, error: "DeviceNotRegistered" }))])
      yield* sendAll
      const lines = removals(log.lines)
      assert.strictEqual(lines.length, 1)
      assert.include(lines[0], "\"reason\":\"token_dead\"")
      assert.include(lines[0], "dev_")
      for (const line of log.lines) assert.notInclude(line, "device7x")
    }).pipe(Effect.provide(withPush), Effect.provide(log.layer))
  })
})
