import { Accounts, Invitations, type OutgoingPush, PushDeviceId, PushMessage, PushMessageId, PushNotifications, PushSender, PushService, UserId } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Logger, Option, Redacted, Ref } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { ExpoPushService } from "../src/outbound/expo/expo-push-service.ts"
import { answer, type ExpoResponder, fakeExpo, happy } from "./expo-fake.ts"

// Shaped like a real Expo access token and unique enough that finding it anywhere is certainly a leak.
const secret = "expo-access-3vQ9wXr7Tz1Lm5Np8Kd2Hs6Jf4Gb0Yc"
const accessToken = Redacted.make(secret)

const service = (baseUrl: string) => PushService.pipe(Effect.provide(ExpoPushService.layer({ baseUrl, accessToken }).pipe(Layer.provide(FetchHttpClient.layer))))

const token = (n: number) => `ExponentPushToken[token${n}aaaaaaaaaaaaaaaaa]`
const message = (n: number) =>
  new PushMessage({
    id: PushMessageId.make(`push_m${n}`),
    userId: UserId.make("usr_u1"),
    deviceId: PushDeviceId.make("dev_d1"),
    sealedToken: `v1.iv${n}.sealed`,
    tokenDigest: `digest-${n}`,
    category: "ai_tasks",
    eventId: Option.none(),
    title: "AI task finished",
    body: "Your AI task has finished.",
    data: { taskId: "task_1" },
    status: "pending",
    attempts: 0,
    nextAttemptAt: Option.none(),
    ticketId: Option.none(),
    receiptCheckAt: Option.none(),
    lastError: Option.none(),
    createdAt: DateTime.makeUnsafe(0),
    updatedAt: DateTime.makeUnsafe(0)
  })
// A message with its token as the sender opens it for the request.
const outgoing = (n: number): OutgoingPush => ({ message: message(n), to: Redacted.make(token(n)) })

const sendVia = (respond: ReadonlyArray<ExpoResponder>, pushes: ReadonlyArray<OutgoingPush>) =>
  Effect.gen(function*() {
    const fake = yield* fakeExpo(respond)
    const push = yield* service(fake.baseUrl)
    const result = yield* Effect.result(push.send(pushes))
    return { result, received: fake.received }
  })

const failureOf = (respond: ExpoResponder) =>
  sendVia([respond], [outgoing(1)]).pipe(Effect.flatMap(({ result }) => result._tag === "Failure" ? Effect.succeed(result.failure) : Effect.die("expected a failure")))

describe("ExpoPushService", () => {
  it.live("posts the batch to /--/api/v2/push/send with the token only in Authorization, and maps each ticket", () =>
    Effect.gen(function*() {
      const { result, received } = yield* sendVia([
        answer(200, { data: [{ status: "ok", id: "r-1" }, { status: "error", message: "not registered", details: { error: "DeviceNotRegistered" } }] })
      ], [outgoing(1), outgoing(2)])
      assert.deepStrictEqual(result._tag === "Success" ? result.success : [], [{ status: "ok", id: "r-1" }, { status: "error", error: "DeviceNotRegistered" }])
      const [request] = received
      assert.strictEqual(request?.path, "/--/api/v2/push/send")
      assert.strictEqual(request?.headers.authorization, `Bearer ${secret}`)
      assert.deepStrictEqual(request?.body, [
        { to: "ExponentPushToken[token1aaaaaaaaaaaaaaaaa]", title: "AI task finished", body: "Your AI task has finished.", data: { taskId: "task_1" }, sound: "default" },
        { to: "ExponentPushToken[token2aaaaaaaaaaaaaaaaa]", title: "AI task finished", body: "Your AI task has finished.", data: { taskId: "task_1" }, sound: "default" }
      ])
    }))

  it.live("keeps Expo's error code only: its message naming the device's token goes into no ticket, receipt or error", () =>
    Effect.gen(function*() {
      const refusal = { status: "error", message: `"${token(1)}" is not a registered push notification recipient`, details: { error: "DeviceNotRegistered", expoPushToken: token(1) } }
      const { result } = yield* sendVia([answer(200, { data: [refusal] })], [outgoing(1)])
      assert.deepStrictEqual(result._tag === "Success" ? result.success : [], [{ status: "error", error: "DeviceNotRegistered" }])
      const fake = yield* fakeExpo([answer(200, { data: { a: refusal } })])
      const receipts = yield* (yield* service(fake.baseUrl)).receipts(["a"])
      assert.deepStrictEqual(Object.fromEntries(receipts), { a: { status: "error", error: "DeviceNotRegistered" } })
      const rejected = yield* failureOf(answer(400, { errors: [{ code: "VALIDATION_ERROR", message: `bad recipient ${token(1)}` }] }))
      assert.strictEqual(rejected.reason, "invalid_response")
      assert.notInclude(JSON.stringify(rejected) + String(rejected), "token1aaaa")
      assert.notInclude(String(outgoing(1).to) + JSON.stringify(outgoing(1)), "token1aaaa", "an outgoing push prints no token")
    }))

  it.live("classifies whole-request failures without echoing the token", () =>
    Effect.gen(function*() {
      const limited = yield* failureOf(answer(429, { errors: [{ code: "TOO_MANY_REQUESTS" }] }, { "retry-after": "30" }))
      assert.deepStrictEqual([limited.reason, limited.retryAfterSeconds], ["rate_limited", 30])
      assert.strictEqual((yield* failureOf(answer(401, { errors: [{ code: "UNAUTHORIZED", message: `bad token ${secret}` }] }))).reason, "invalid_credentials")
      assert.strictEqual((yield* failureOf(answer(503, {}))).reason, "unavailable")
      assert.strictEqual((yield* failureOf(answer(200, { nope: true }))).reason, "invalid_response")
      assert.strictEqual((yield* failureOf(answer(200, { data: [] }))).reason, "invalid_response")
      for (const error of [limited, yield* failureOf(answer(401, { message: secret }))]) assert.notInclude(JSON.stringify(error) + String(error), secret)
    }))

  it.live("reads receipts by ticket id", () =>
    Effect.gen(function*() {
      const fake = yield* fakeExpo([answer(200, { data: { a: { status: "ok" }, b: { status: "error", details: { error: "DeviceNotRegistered" } } } })])
      const push = yield* service(fake.baseUrl)
      const receipts = yield* push.receipts(["a", "b", "c"])
      assert.deepStrictEqual(Object.fromEntries(receipts), { a: { status: "ok" }, b: { status: "error", error: "DeviceNotRegistered" } })
      assert.strictEqual(fake.received[0]?.path, "/--/api/v2/push/getReceipts")
      assert.deepStrictEqual(fake.received[0]?.body, { ids: ["a", "b", "c"] })
    }))

  it.effect("end to end: a 429 from the push service backs the batch off with Retry-After, then it is sent", () =>
    Effect.gen(function*() {
      const fake = yield* fakeExpo([answer(429, {}, { "retry-after": "20" })], happy)
      const logs: Array<string> = []
      const domain = Domain.layerMemory.pipe(
        Layer.provideMerge(ExpoPushService.layer({ baseUrl: fake.baseUrl, accessToken }).pipe(Layer.provide(FetchHttpClient.layer)))
      )
      yield* Effect.gen(function*() {
        const accounts = yield* Accounts
        const password = Redacted.make("correct horse battery")
        const owner = yield* accounts.signUp({ email: "owner@example.com", password, name: "Owner" })
        const ownerPrincipal = yield* accounts.authenticate(owner.session.accessToken)
        const bob = yield* accounts.signUp({ email: "bob@example.com", password, name: "Bob" })
        const bobPrincipal = yield* accounts.authenticate(bob.session.accessToken)
        yield* (yield* PushNotifications).register(bobPrincipal, "bob-phone", {
          expoPushToken: Redacted.make("ExponentPushToken[bobbbbbbbbbbbbbbbbbbbbb]"),
          platform: "ios",
          appVersion: "1.0.0",
          locale: "en"
        })
        yield* (yield* Invitations).create(ownerPrincipal, { email: "bob@example.com", role: "member" })
        const sender = yield* PushSender
        const pass = Effect.gen(function*() {
          for (const batch of yield* sender.sendQueue.claim(10)) yield* sender.sendQueue.step(batch)
        })
        const status = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state)).pipe(Effect.map((s) => Array.from(s.pushMessages.values())[0]))
        yield* pass
        assert.strictEqual((yield* status)?.status, "pending")
        yield* pass
        assert.strictEqual(fake.received.length, 1, "not retried before Retry-After")
        yield* TestClock.adjust("21 seconds")
        yield* pass
        assert.strictEqual((yield* status)?.status, "sent")
        assert.strictEqual(fake.received.length, 2)
      }).pipe(
        Effect.provide(domain),
        Effect.provide(Logger.layer([Logger.make((options) => logs.push(String(options.message)))]))
      )
      assert.notInclude(logs.join("\n"), secret)
    }))
})
