import { assert, describe, it } from "@effect/vitest"
import { FeatureRequestId, FeatureRequests, PushNotifications, PushSender, titleSimilarity } from "@atrium/domain"
import { Domain, MemoryStore, PushServiceMemory, PushServiceScript, operatorPrincipal } from "@atrium/domain/testing"
import { Effect, Layer, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"
import { signUp, principalOf, team } from "../support/identity.ts"

const page = { limit: 20, cursor: undefined }
const board = FeatureRequests
const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))
const withPush = Domain.layerMemory.pipe(Layer.provideMerge(PushServiceMemory))
const token = (n: number) => `ExponentPushToken[device${n}xxxxxxxxxxxxxxx]`
const registration = (n: number) => ({ expoPushToken: Redacted.make(token(n)), platform: "ios" as const, appVersion: "1.0.0", locale: "en-GB" })

describe("Feature requests", () => {
  it.effect("a double vote counts once, and removing it twice changes nothing", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      const created = yield* (yield* board).create(ownerPrincipal, { title: "Dark mode for the dashboard", details: "" }, Option.none())
      const id = created.request.id
      yield* (yield* board).vote(bob.principal, id)
      const twice = yield* (yield* board).vote(bob.principal, id)
      assert.strictEqual(twice.request.voteCount, 1)
      assert.isTrue(twice.viewerHasVoted)
      yield* (yield* board).unvote(bob.principal, id)
      const none = yield* (yield* board).unvote(bob.principal, id)
      assert.strictEqual(none.request.voteCount, 0)
      assert.isFalse(none.viewerHasVoted)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("merging moves votes to the target and counts a user who voted on both once", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      const carol = yield* join("carol@example.com", "member")
      const target = (yield* (yield* board).create(ownerPrincipal, { title: "Export usage as CSV", details: "" }, Option.none())).request
      const dup = (yield* (yield* board).create(bob.principal, { title: "CSV export of usage", details: "" }, Option.none())).request
      yield* (yield* board).vote(bob.principal, target.id)
      yield* (yield* board).vote(bob.principal, dup.id)
      yield* (yield* board).vote(carol.principal, dup.id)
      const merged = yield* (yield* board).merge(operatorPrincipal(), dup.id, target.id)
      assert.strictEqual(merged.status, "merged")
      assert.deepStrictEqual(merged.mergedInto, Option.some(target.id))
      const after = yield* (yield* board).get(carol.principal, target.id)
      assert.strictEqual(after.request.voteCount, 2)
      assert.isTrue(after.viewerHasVoted)
      assert.strictEqual((yield* (yield* board).get(carol.principal, dup.id)).request.voteCount, 0)
      // The merged request leaves the default board.
      const listed = yield* (yield* board).list(carol.principal, { status: undefined, sort: "top" }, page)
      assert.deepStrictEqual(listed.data.map((r) => r.request.id), [target.id])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("at most 10 requests per user in any 24 hours; the 11th is rate limited until the first ages out", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      for (let n = 0; n < 10; n++) {
        yield* (yield* board).create(ownerPrincipal, { title: `Request number ${n}`, details: "" }, Option.none())
        yield* TestClock.adjust("1 minute")
      }
      const refused = yield* (yield* board).create(ownerPrincipal, { title: "One too many", details: "" }, Option.none()).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "RateLimited")
      if (refused._tag === "RateLimited") assert.isTrue(refused.retryAfter > 0 && refused.retryAfter <= 24 * 3600)
      yield* TestClock.adjust("24 hours")
      const allowed = yield* (yield* board).create(ownerPrincipal, { title: "Finally allowed", details: "" }, Option.none())
      assert.strictEqual(allowed.request.status, "open")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the same Idempotency-Key replays the request; with another body it is refused", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      const first = yield* (yield* board).create(ownerPrincipal, { title: "Webhooks for invoices", details: "a" }, Option.some("k1"))
      const again = yield* (yield* board).create(ownerPrincipal, { title: "Webhooks for invoices", details: "a" }, Option.some("k1"))
      assert.strictEqual(again.request.id, first.request.id)
      const other = yield* (yield* board).create(ownerPrincipal, { title: "Something else", details: "a" }, Option.some("k1")).pipe(Effect.flip)
      assert.strictEqual(other._tag, "IdempotencyKeyReused")
      assert.strictEqual(Array.from((yield* state).featureRequests.values()).length, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("creating a request offers existing ones with similar titles as possible duplicates", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      const existing = yield* (yield* board).create(ownerPrincipal, { title: "Dark mode for the mobile app", details: "" }, Option.none())
      yield* (yield* board).create(ownerPrincipal, { title: "Invoices by email", details: "" }, Option.none())
      const created = yield* (yield* board).create(ownerPrincipal, { title: "Mobile app dark mode", details: "" }, Option.none())
      assert.deepStrictEqual(created.possibleDuplicates.map((d) => d.request.id), [existing.request.id])
      assert.isTrue(titleSimilarity("Dark mode for the mobile app", "Mobile app dark mode") >= 0.5)
      assert.isTrue(titleSimilarity("Dark mode", "Invoices by email") < 0.5)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a status change emits feature_request.status_changed to the author's workspace and pushes to voters who allow it", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, workspace, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      const carol = yield* join("carol@example.com", "member")
      const push = yield* PushNotifications
      yield* push.register(bob.principal, "bob-phone", registration(1))
      yield* push.register(carol.principal, "carol-phone", registration(2))
      yield* push.setPreferences(carol.principal, { ai_tasks: true, invitations: true, feature_requests: false, billing: true, schedules: true })
      const created = yield* (yield* board).create(ownerPrincipal, { title: "Scheduled exports", details: "" }, Option.none())
      yield* (yield* board).vote(bob.principal, created.request.id)
      yield* (yield* board).vote(carol.principal, created.request.id)
      yield* (yield* board).changeStatus(operatorPrincipal(), created.request.id, "planned", Option.some("Q3"))
      const s = yield* state
      const event = s.events.find((e) => e.type === "feature_request.status_changed")
      assert.strictEqual(event?.workspaceId, workspace.id)
      assert.deepInclude(event?.data, { previousStatus: "open", note: "Q3" })
      const messages = Array.from(s.pushMessages.values())
      assert.deepStrictEqual(messages.map((m) => m.userId), [bob.user.id])
      assert.strictEqual(messages[0]?.data.featureRequestId, created.request.id)
      // The push says what happened: the request's title, its new status and the operator's note.
      assert.strictEqual(messages[0]?.title, "“Scheduled exports” is planned")
      assert.strictEqual(messages[0]?.body, "A feature request you follow is now planned — “Q3”")
      // The sender hands it to the push service once.
      const sender = yield* PushSender
      const claimed = yield* sender.sendQueue.claim(10)
      for (const batch of claimed) yield* sender.sendQueue.step(batch)
      assert.strictEqual(Array.from((yield* state).pushMessages.values())[0]?.status, "sent")
    }).pipe(Effect.provide(withPush)))

  it.effect("without a push token in this process push says it is off, yet a change still queues its messages for a process that has one", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      const push = yield* PushNotifications
      assert.isFalse(push.enabled)
      yield* push.register(bob.principal, "bob-phone", registration(1))
      const created = yield* (yield* board).create(ownerPrincipal, { title: "Scheduled exports", details: "" }, Option.none())
      yield* (yield* board).vote(bob.principal, created.request.id)
      // As an operator's CLI does it: no push token here, the server's push worker sends.
      yield* (yield* board).changeStatus(operatorPrincipal(), created.request.id, "planned", Option.none())
      const queued = Array.from((yield* state).pushMessages.values())
      assert.deepStrictEqual(queued.map((message) => [message.userId, message.status, message.data.featureRequestId]), [
        [bob.principal.userId, "pending", created.request.id]
      ])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a message no process sent within 24 hours is dropped unsent, not delivered as old news", () =>
    Effect.gen(function*() {
      const { ownerPrincipal, join } = yield* team
      const bob = yield* join("bob@example.com", "member")
      yield* (yield* PushNotifications).register(bob.principal, "bob-phone", registration(1))
      const created = yield* (yield* board).create(ownerPrincipal, { title: "Scheduled exports", details: "" }, Option.none())
      yield* (yield* board).vote(bob.principal, created.request.id)
      yield* (yield* board).changeStatus(operatorPrincipal(), created.request.id, "planned", Option.none())
      // Nothing with push configured ran for a day and a bit.
      yield* TestClock.adjust("25 hours")
      const sender = yield* PushSender
      for (const batch of yield* sender.sendQueue.claim(10)) yield* sender.sendQueue.step(batch)
      assert.deepStrictEqual((yield* Ref.get((yield* PushServiceScript).sent)).flat(), [])
      const dropped = Array.from((yield* state).pushMessages.values())
      assert.deepStrictEqual(dropped.map((message) => [message.status, Option.getOrNull(message.lastError)]), [["failed", "expired: not sent within 24 hours"]])
    }).pipe(Effect.provide(withPush)))

  it.effect("a merged request keeps its status; operators cannot set merged directly", () =>
    Effect.gen(function*() {
      const { ownerPrincipal } = yield* team
      const a = (yield* (yield* board).create(ownerPrincipal, { title: "First idea", details: "" }, Option.none())).request
      const b = (yield* (yield* board).create(ownerPrincipal, { title: "Second idea", details: "" }, Option.none())).request
      yield* (yield* board).merge(operatorPrincipal(), a.id, b.id)
      const refused = yield* (yield* board).changeStatus(operatorPrincipal(), a.id, "open", Option.none()).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "InvalidInput")
      const self = yield* (yield* board).merge(operatorPrincipal(), b.id, b.id).pipe(Effect.flip)
      assert.strictEqual(self._tag, "InvalidInput")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("an unknown request is not found", () =>
    Effect.gen(function*() {
      const someone = yield* signUp("someone@example.com")
      const principal = yield* principalOf(someone.session)
      const missing = yield* (yield* board).get(principal, FeatureRequestId.make("fr_doesnotexist")).pipe(Effect.flip)
      assert.strictEqual(missing._tag, "NotFound")
    }).pipe(Effect.provide(Domain.layerMemory)))
})
