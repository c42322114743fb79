import { eventDefinitions } from "@atrium/domain"
import { answer, runDueDeliveries, ScriptedReceiver } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { TestClock } from "effect/testing"
import { DateTime, Effect, Ref } from "effect"
import { addKey, AppUnderTest, seedKey, send, sendJson } from "./harness.ts"
import { isRecord, member, records } from "./json.ts"

const hook = (n: number | string = "a") => ({ url: `https://hooks.example.com/${n}` })

/** A workspace with a `webhooks:write` key, a read-only key, and one endpoint created over HTTP. */
const setup = Effect.gen(function*() {
  const { key: writer, workspace } = yield* seedKey({ scopes: ["read", "webhooks:write"] })
  const reader = yield* addKey(workspace.id, ["read"])
  const created = yield* sendJson("POST", "/api/v1/webhook-endpoints", writer, { ...hook(), description: "orders" })
  assert.strictEqual(created.status, 201, created.text)
  return { writer, reader, workspace, endpointId: String(created.body.id), secret: String(created.body.secret) }
})

/** One worker pass, as the delivery worker runs it: claim what is due, send it, record each attempt. */
const workerPass = Effect.gen(function*() {
  return yield* runDueDeliveries(100)
})

describe("/api/v1 webhooks", () => {
  it.effect("create answers 201 with a whsec_ secret that list and get never show", () =>
    Effect.gen(function*() {
      const { writer, reader, endpointId, secret } = yield* setup
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/)
      assert.match(endpointId, /^whe_/)
      const list = yield* send("GET", "/api/v1/webhook-endpoints", { key: reader })
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(records(list.body.data).map((e) => e.id), [endpointId])
      assert.strictEqual(list.body.nextCursor, null)
      const got = yield* send("GET", `/api/v1/webhook-endpoints/${endpointId}`, { key: writer })
      assert.strictEqual(got.status, 200)
      assert.deepInclude(got.body, { id: endpointId, url: "https://hooks.example.com/a", description: "orders", eventTypes: null, enabled: true })
      for (const reply of [list, got]) {
        assert.notInclude(reply.text, "whsec_")
        assert.notInclude(reply.text, "secret")
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a read-only key is refused every write with 403 insufficient_scope naming webhooks:write", () =>
    Effect.gen(function*() {
      const { writer, reader, endpointId } = yield* setup
      const test = yield* send("POST", `/api/v1/webhook-endpoints/${endpointId}/test`, { key: writer })
      const deliveryId = String(test.body.id)
      const writes = [
        sendJson("POST", "/api/v1/webhook-endpoints", reader, hook("b")),
        sendJson("PATCH", `/api/v1/webhook-endpoints/${endpointId}`, reader, { description: "x" }),
        send("DELETE", `/api/v1/webhook-endpoints/${endpointId}`, { key: reader }),
        sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`, reader, {}),
        send("POST", `/api/v1/webhook-endpoints/${endpointId}/test`, { key: reader }),
        sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/recover`, reader, { since: new Date().toISOString() }),
        send("POST", `/api/v1/webhook-deliveries/${deliveryId}/replay`, { key: reader })
      ]
      for (const write of writes) {
        const reply = yield* write
        assert.strictEqual(reply.status, 403, reply.text)
        assert.strictEqual(reply.body.code, "insufficient_scope")
        assert.strictEqual(reply.body.requiredScope, "webhooks:write")
      }
      // Nothing changed: still one endpoint, as it was.
      const got = yield* send("GET", `/api/v1/webhook-endpoints/${endpointId}`, { key: reader })
      assert.strictEqual(got.body.description, "orders")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("another workspace's endpoint and delivery ids answer exactly like missing ids, on every route", () =>
    Effect.gen(function*() {
      const mine = yield* setup
      const theirs = yield* setup
      const test = yield* send("POST", `/api/v1/webhook-endpoints/${theirs.endpointId}/test`, { key: theirs.writer })
      assert.strictEqual(test.status, 202)
      const routes = (endpointId: string, deliveryId: string) => [
        send("GET", `/api/v1/webhook-endpoints/${endpointId}`, { key: mine.writer }),
        sendJson("PATCH", `/api/v1/webhook-endpoints/${endpointId}`, mine.writer, { description: "mine now" }),
        send("DELETE", `/api/v1/webhook-endpoints/${endpointId}`, { key: mine.writer }),
        sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`, mine.writer, {}),
        send("POST", `/api/v1/webhook-endpoints/${endpointId}/test`, { key: mine.writer }),
        send("GET", `/api/v1/webhook-endpoints/${endpointId}/deliveries`, { key: mine.writer }),
        sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/recover`, mine.writer, { since: new Date().toISOString() }),
        send("GET", `/api/v1/webhook-deliveries/${deliveryId}`, { key: mine.writer }),
        send("POST", `/api/v1/webhook-deliveries/${deliveryId}/replay`, { key: mine.writer })
      ]
      const foreign = yield* Effect.all(routes(theirs.endpointId, String(test.body.id)))
      const missing = yield* Effect.all(routes("whe_doesNotExist0000", "msg_doesNotExist0000"))
      const shape = (reply: { readonly status: number; readonly body: Record<string, unknown> }) =>
        [reply.status, reply.body.code, reply.body.detail, reply.body.title, reply.body.type]
      for (const [i, reply] of foreign.entries()) {
        assert.strictEqual(reply.status, 404, reply.text)
        assert.strictEqual(reply.body.code, "not_found")
        assert.deepStrictEqual(shape(reply), shape(missing[i] ?? reply))
        assert.notInclude(reply.text, theirs.workspace.id)
      }
      // And nothing happened to their endpoint.
      const intact = yield* send("GET", `/api/v1/webhook-endpoints/${theirs.endpointId}`, { key: theirs.reader })
      assert.strictEqual(intact.body.description, "orders")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("http:// and blocked URLs are 400 invalid_request, on create and update", () =>
    Effect.gen(function*() {
      const { writer, endpointId } = yield* setup
      for (const url of ["http://hooks.example.com/x", "https://blocked.example/x", "https://10.0.0.1/x", "not a url"]) {
        const created = yield* sendJson("POST", "/api/v1/webhook-endpoints", writer, { url })
        assert.strictEqual(created.status, 400, url)
        assert.strictEqual(created.body.code, "invalid_request")
        assert.include(String(created.body.detail), "url refused")
        const updated = yield* sendJson("PATCH", `/api/v1/webhook-endpoints/${endpointId}`, writer, { url })
        assert.strictEqual(updated.status, 400, url)
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("the 21st endpoint is 409 conflict", () =>
    Effect.gen(function*() {
      const { writer } = yield* setup
      for (let i = 2; i <= 20; i++) {
        assert.strictEqual((yield* sendJson("POST", "/api/v1/webhook-endpoints", writer, hook(i))).status, 201)
      }
      const refused = yield* sendJson("POST", "/api/v1/webhook-endpoints", writer, hook(21))
      assert.strictEqual(refused.status, 409)
      assert.strictEqual(refused.body.code, "conflict")
      assert.strictEqual(refused.headers["content-type"], "application/problem+json")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("an unknown field in a body is 400, so nobody sets what they may not", () =>
    Effect.gen(function*() {
      const { writer, endpointId } = yield* setup
      const other = yield* seedKey({ name: "Other" })
      const attempts = [
        sendJson("POST", "/api/v1/webhook-endpoints", writer, { ...hook("b"), workspaceId: other.workspace.id }),
        sendJson("POST", "/api/v1/webhook-endpoints", writer, { ...hook("b"), enabled: false }),
        sendJson("PATCH", `/api/v1/webhook-endpoints/${endpointId}`, writer, { secret: "whsec_mine" }),
        sendJson("PATCH", `/api/v1/webhook-endpoints/${endpointId}`, writer, { disabledReason: null }),
        sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`, writer, { gracePeriodSeconds: 60, secret: "x" })
      ]
      for (const attempt of attempts) {
        const reply = yield* attempt
        assert.strictEqual(reply.status, 400, reply.text)
        assert.strictEqual(reply.body.code, "invalid_request")
      }
      const list = yield* send("GET", "/api/v1/webhook-endpoints", { key: writer })
      assert.strictEqual(records(list.body.data).length, 1)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("PATCH changes only the given fields; null event types subscribe to every type; DELETE is 204", () =>
    Effect.gen(function*() {
      const { writer, endpointId } = yield* setup
      const path = `/api/v1/webhook-endpoints/${endpointId}`
      const narrowed = yield* sendJson("PATCH", path, writer, { eventTypes: ["webhook.test"] })
      assert.strictEqual(narrowed.status, 200, narrowed.text)
      assert.deepInclude(narrowed.body, { eventTypes: ["webhook.test"], description: "orders", url: "https://hooks.example.com/a" })
      const widened = yield* sendJson("PATCH", path, writer, { eventTypes: null })
      assert.strictEqual(widened.body.eventTypes, null)
      const disabled = yield* sendJson("PATCH", path, writer, { enabled: false })
      assert.strictEqual(disabled.body.enabled, false)
      const test = yield* send("POST", `${path}/test`, { key: writer })
      assert.strictEqual(test.status, 409)
      assert.strictEqual(test.body.code, "conflict")
      const removed = yield* send("DELETE", path, { key: writer })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual(removed.text, "")
      assert.strictEqual((yield* send("GET", path, { key: writer })).status, 404)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("rotate-secret answers a new secret; a grace period over 7 days is 400", () =>
    Effect.gen(function*() {
      const { writer, endpointId, secret } = yield* setup
      const path = `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`
      const rotated = yield* sendJson("POST", path, writer, { gracePeriodSeconds: 3600 })
      assert.strictEqual(rotated.status, 200, rotated.text)
      assert.strictEqual(rotated.body.id, endpointId)
      assert.match(String(rotated.body.secret), /^whsec_/)
      assert.notStrictEqual(rotated.body.secret, secret)
      assert.strictEqual((yield* sendJson("POST", path, writer, {})).status, 200)
      assert.strictEqual((yield* sendJson("POST", path, writer, { gracePeriodSeconds: 7 * 86_400 })).status, 200)
      const tooLong = yield* sendJson("POST", path, writer, { gracePeriodSeconds: 7 * 86_400 + 1 })
      assert.strictEqual(tooLong.status, 400)
      assert.strictEqual(tooLong.body.code, "invalid_request")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("test is 202 with a pending delivery that the deliveries list and the delivery read show, with attempts", () =>
    Effect.gen(function*() {
      const { writer, reader, endpointId } = yield* setup
      const test = yield* send("POST", `/api/v1/webhook-endpoints/${endpointId}/test`, { key: writer })
      assert.strictEqual(test.status, 202, test.text)
      assert.deepInclude(test.body, { endpointId, eventType: "webhook.test", status: "pending", attemptCount: 0, replayOf: null })
      const deliveryId = String(test.body.id)
      assert.match(deliveryId, /^msg_/)
      const listed = yield* send("GET", `/api/v1/webhook-endpoints/${endpointId}/deliveries`, { key: reader })
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual(records(listed.body.data).map((d) => d.id), [deliveryId])
      const pending = yield* send("GET", `/api/v1/webhook-endpoints/${endpointId}/deliveries?status=pending`, { key: reader })
      assert.deepStrictEqual(records(pending.body.data).map((d) => d.id), [deliveryId])
      const none = yield* send("GET", `/api/v1/webhook-endpoints/${endpointId}/deliveries?status=succeeded`, { key: reader })
      assert.deepStrictEqual(none.body.data, [])
      assert.strictEqual((yield* send("GET", `/api/v1/webhook-endpoints/${endpointId}/deliveries?status=lost`, { key: reader })).status, 400)

      // The receiver answers 500 once: the attempt is recorded with what came back.
      yield* Ref.set((yield* ScriptedReceiver).script, [answer(500, { responseBody: "oops", responseHeaders: { "content-type": "text/plain" } })])
      yield* workerPass
      const read = yield* send("GET", `/api/v1/webhook-deliveries/${deliveryId}`, { key: reader })
      assert.strictEqual(read.status, 200, read.text)
      assert.deepInclude(read.body, { id: deliveryId, status: "pending", attemptCount: 1, lastStatusCode: 500 })
      const attempts = records(read.body.attempts)
      assert.strictEqual(attempts.length, 1)
      assert.deepInclude(attempts[0], {
        number: 1,
        statusCode: 500,
        errorKind: "non_2xx",
        responseHeaders: { "content-type": "text/plain" },
        responseBody: "oops"
      })
      assert.isString(attempts[0]?.startedAt)
      assert.isNumber(attempts[0]?.durationMillis)
      assert.isString(attempts[0]?.nextAttemptAt)
      assert.notProperty(attempts[0], "remoteAddress")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("replay is 202 with a new delivery of the same event; recover replays failures and refuses > 14 days", () =>
    Effect.gen(function*() {
      const { writer, endpointId } = yield* setup
      const test = yield* send("POST", `/api/v1/webhook-endpoints/${endpointId}/test`, { key: writer })
      const replayed = yield* send("POST", `/api/v1/webhook-deliveries/${String(test.body.id)}/replay`, { key: writer })
      assert.strictEqual(replayed.status, 202, replayed.text)
      assert.notStrictEqual(replayed.body.id, test.body.id)
      assert.strictEqual(replayed.body.eventId, test.body.eventId)
      assert.strictEqual(replayed.body.replayOf, test.body.id)
      const now = yield* DateTime.now
      const recovered = yield* sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/recover`, writer, {
        since: DateTime.formatIso(DateTime.subtract(now, { days: 3 }))
      })
      assert.strictEqual(recovered.status, 200, recovered.text)
      assert.deepStrictEqual(recovered.body.data, [])
      const tooOld = yield* sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/recover`, writer, {
        since: DateTime.formatIso(DateTime.subtract(now, { days: 15 }))
      })
      assert.strictEqual(tooOld.status, 400)
      assert.strictEqual(tooOld.body.code, "invalid_request")
      assert.strictEqual((yield* sendJson("POST", `/api/v1/webhook-endpoints/${endpointId}/recover`, writer, { since: "yesterday" })).status, 400)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("lists page with limit and cursor; a limit outside 1–100 is 400", () =>
    Effect.gen(function*() {
      const { writer } = yield* setup
      for (let i = 2; i <= 3; i++) yield* sendJson("POST", "/api/v1/webhook-endpoints", writer, hook(i))
      const first = yield* send("GET", "/api/v1/webhook-endpoints?limit=2", { key: writer })
      assert.strictEqual(records(first.body.data).length, 2)
      assert.isString(first.body.nextCursor)
      const second = yield* send("GET", `/api/v1/webhook-endpoints?limit=2&cursor=${String(first.body.nextCursor)}`, { key: writer })
      assert.strictEqual(records(second.body.data).length, 1)
      assert.strictEqual(second.body.nextCursor, null)
      for (const limit of ["0", "101", "1.5", "x"]) {
        assert.strictEqual((yield* send("GET", `/api/v1/webhook-endpoints?limit=${limit}`, { key: writer })).status, 400, limit)
      }
      // Cursors are opaque and validated: one no page produced (here year -271821) is 400, never a 500.
      for (const path of ["/api/v1/events", "/api/v1/webhook-endpoints"]) {
        for (const cursor of ["LTg2NDAwMDAwMDAwMDAwMDAuZXZ0X3g", "2", "bm90LWEtY3Vyc29y"]) {
          const refused = yield* send("GET", `${path}?cursor=${cursor}`, { key: writer })
          assert.strictEqual(refused.status, 400, `${path} ${cursor}`)
          assert.strictEqual(refused.body.code, "invalid_request")
        }
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("GET /event-types lists every catalog type, each with a JSON Schema of its data", () =>
    Effect.gen(function*() {
      const { reader } = yield* setup
      const reply = yield* send("GET", "/api/v1/event-types", { key: reader })
      assert.strictEqual(reply.status, 200)
      const types = records(reply.body.data)
      assert.strictEqual(types.length, eventDefinitions.length)
      assert.deepStrictEqual(new Set(types.map((t) => t.type)), new Set(eventDefinitions.map((d) => d.type)))
      assert.includeMembers(types.map((t) => t.type), ["domain.verified", "domain.misconfigured", "domain.verification_failed"])
      for (const type of types) {
        assert.isString(type.description)
        assert.isTrue(isRecord(type.schema), String(type.type))
        assert.strictEqual(member(type.schema, "$schema"), "https://json-schema.org/draft/2020-12/schema")
        assert.strictEqual(member(type.schema, "type"), "object", String(type.type))
      }
      const test = types.find((t) => t.type === "webhook.test")
      assert.deepStrictEqual(member(test?.schema, "required"), ["message", "endpointId"])
      // A payload that references shared definitions carries them along.
      const created = types.find((t) => t.type === "api_key.created")
      assert.isTrue(isRecord(member(created?.schema, "$defs")))
      // No payload has a member that could carry a secret.
      assert.notInclude(reply.text, `"secret":`)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("GET /events lists the workspace's own events, newest first, in the webhook envelope", () =>
    Effect.gen(function*() {
      const { writer, workspace, endpointId } = yield* setup
      const theirs = yield* setup
      yield* send("POST", `/api/v1/webhook-endpoints/${theirs.endpointId}/test`, { key: theirs.writer })
      // Lists are ordered by time (then id): the test event comes a second after the keys.
      yield* TestClock.adjust("1 second")
      yield* send("POST", `/api/v1/webhook-endpoints/${endpointId}/test`, { key: writer })
      const reply = yield* send("GET", "/api/v1/events", { key: writer })
      assert.strictEqual(reply.status, 200, reply.text)
      const events = records(reply.body.data)
      // Two keys created (api_key.created each), then a test event.
      assert.deepStrictEqual(events.map((e) => e.type), ["webhook.test", "api_key.created", "api_key.created"])
      for (const event of events) {
        assert.deepStrictEqual(Object.keys(event).sort(), ["createdAt", "data", "id", "type", "workspaceId"])
        assert.strictEqual(event.workspaceId, workspace.id)
        assert.match(String(event.id), /^evt_/)
      }
      assert.strictEqual(member(events[0]?.data, "endpointId"), endpointId)
      assert.isString(member(member(events[1]?.data, "apiKey"), "prefix"))
      // Events name keys by their display prefix only, never the key itself.
      assert.notInclude(reply.text, writer)
      assert.notInclude(reply.text, theirs.workspace.id)
    }).pipe(Effect.provide(AppUnderTest())))
})
