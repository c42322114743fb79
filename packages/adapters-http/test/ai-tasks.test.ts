import { Entitlements, Feature, Usage, type WorkspaceId } from "@atrium/domain"
import { runDueTasks, systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { addKey, AppUnderTest, seedKey, send, sendJson } from "./harness.ts"

const hello = { model: "atrium-local-1", input: { prompt: "hello" } }
// The worst case of `hello` on atrium-local-1: 1 µ$ of input plus 4,000 output tokens at 0.4 µ$ each.
const worstHello = 1601

/** A workspace, entitled to `ai.basic` unless told otherwise, with `credits` micro-USD and a key that may submit. */
const setup = (credits: number, options: { readonly entitled?: boolean } = {}) =>
  Effect.gen(function*() {
    const { key, workspace } = yield* seedKey({ scopes: ["read", "ai_tasks:write"] })
    if (options.entitled !== false) {
      yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
    }
    if (credits > 0) yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), credits)
    return { key, workspaceId: workspace.id }
  })

const submit = (key: string, body: unknown = hello, headers?: Record<string, string>) =>
  sendJson("POST", "/api/v1/ai-tasks", key, body, headers)

const setCaps = (workspaceId: WorkspaceId, caps: { readonly spendCapMicros?: number; readonly taskCap?: number }) =>
  Effect.gen(function*() {
    yield* (yield* Usage).setCaps(systemPrincipal(workspaceId), caps)
  })

describe("/api/v1/ai-tasks", () => {
  it.effect("a submission is 202 queued, GET answers the same task, and it finishes once a worker runs it", () =>
    Effect.gen(function*() {
      const { key } = yield* setup(10_000)
      const accepted = yield* submit(key, { ...hello, metadata: { order: "42" } })
      assert.strictEqual(accepted.status, 202, accepted.text)
      assert.deepInclude(accepted.body, {
        status: "queued",
        model: "atrium-local-1",
        reservedMicros: worstHello,
        output: null,
        usage: null,
        metadata: { order: "42" }
      })
      assert.match(String(accepted.body.id), /^task_/)
      assert.isUndefined(accepted.headers["idempotent-replayed"])
      const path = `/api/v1/ai-tasks/${String(accepted.body.id)}`
      const got = yield* send("GET", path, { key })
      assert.strictEqual(got.status, 200)
      assert.deepStrictEqual(got.body, accepted.body)
      yield* runDueTasks(10)
      const done = yield* send("GET", path, { key })
      assert.deepInclude(done.body, { status: "succeeded", output: "[atrium-local-1] hello", usage: { inputTokens: 2, outputTokens: 6, costMicros: 4 } })
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("an unknown model, a malformed input and an unknown field are 400 invalid_request", () =>
    Effect.gen(function*() {
      const { key } = yield* setup(10_000)
      const unknown = yield* submit(key, { ...hello, model: "gpt-9" })
      assert.strictEqual(unknown.status, 400)
      assert.strictEqual(unknown.body.code, "invalid_request")
      assert.include(String(unknown.body.detail), "gpt-9")
      for (const body of [
        { ...hello, input: { messages: [] } },
        { ...hello, input: { prompt: "" } },
        { ...hello, workspaceId: "ws_someoneElse000000" },
        { ...hello, status: "succeeded" },
        { ...hello, input: { prompt: "hi", messages: [{ role: "user", content: "hi" }] } }
      ]) {
        const reply = yield* submit(key, body)
        assert.strictEqual(reply.status, 400, JSON.stringify(body))
        assert.strictEqual(reply.body.code, "invalid_request")
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a workspace without the model's feature is 403 not_entitled, naming it", () =>
    Effect.gen(function*() {
      const { key } = yield* setup(10_000, { entitled: false })
      const reply = yield* submit(key)
      assert.strictEqual(reply.status, 403)
      assert.strictEqual(reply.body.code, "not_entitled")
      assert.strictEqual(reply.body.feature, "ai.basic")
      assert.strictEqual(reply.headers["content-type"], "application/problem+json")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("credits short of the worst case are 402 insufficient_credits", () =>
    Effect.gen(function*() {
      const { key } = yield* setup(worstHello - 1)
      const reply = yield* submit(key)
      assert.strictEqual(reply.status, 402)
      assert.strictEqual(reply.body.code, "insufficient_credits")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a worst case beyond the monthly cap is 402 usage_cap_reached, naming the meter", () =>
    Effect.gen(function*() {
      const { key, workspaceId } = yield* setup(10_000)
      yield* setCaps(workspaceId, { spendCapMicros: worstHello - 1 })
      const spend = yield* submit(key)
      assert.strictEqual(spend.status, 402)
      assert.strictEqual(spend.body.code, "usage_cap_reached")
      assert.strictEqual(spend.body.meter, "ai_spend")
      yield* setCaps(workspaceId, { spendCapMicros: 1_000_000, taskCap: 0 })
      const tasks = yield* submit(key)
      assert.strictEqual(tasks.status, 402)
      assert.strictEqual(tasks.body.meter, "ai_tasks")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("the same Idempotency-Key and body answer the first task with Idempotent-Replayed: true", () =>
    Effect.gen(function*() {
      const { key } = yield* setup(10_000)
      const first = yield* submit(key, hello, { "idempotency-key": "order-1" })
      assert.strictEqual(first.status, 202)
      assert.isUndefined(first.headers["idempotent-replayed"])
      const again = yield* submit(key, hello, { "idempotency-key": "order-1" })
      assert.strictEqual(again.status, 202)
      assert.strictEqual(again.headers["idempotent-replayed"], "true")
      assert.deepStrictEqual(again.body, first.body)
      // Reserved once.
      const usage = yield* send("GET", "/api/v1/usage", { key })
      assert.strictEqual(usage.body.taskCount, 1)
      assert.strictEqual(usage.body.reservedMicros, worstHello)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("the same Idempotency-Key with another body is 409 idempotency_key_reused; a malformed key is 400", () =>
    Effect.gen(function*() {
      const { key } = yield* setup(10_000)
      yield* submit(key, hello, { "idempotency-key": "order-1" })
      const reused = yield* submit(key, { ...hello, input: { prompt: "hello!" } }, { "idempotency-key": "order-1" })
      assert.strictEqual(reused.status, 409)
      assert.strictEqual(reused.body.code, "idempotency_key_reused")
      for (const bad of ["k".repeat(256), "has space", "tab\tbed", "naïve"]) {
        const reply = yield* submit(key, hello, { "idempotency-key": bad })
        assert.strictEqual(reply.status, 400, bad)
        assert.strictEqual(reply.body.code, "invalid_request")
      }
      assert.strictEqual((yield* submit(key, hello, { "idempotency-key": "k".repeat(255) })).status, 202)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a read-only key is 403 insufficient_scope naming ai_tasks:write", () =>
    Effect.gen(function*() {
      const { workspaceId } = yield* setup(10_000)
      const reader = yield* addKey(workspaceId, ["read"])
      const reply = yield* submit(reader)
      assert.strictEqual(reply.status, 403)
      assert.strictEqual(reply.body.code, "insufficient_scope")
      assert.strictEqual(reply.body.requiredScope, "ai_tasks:write")
      const webhooksOnly = yield* addKey(workspaceId, ["webhooks:write"])
      assert.strictEqual((yield* submit(webhooksOnly)).status, 403)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("another workspace's task answers exactly like a missing one: 404 not_found", () =>
    Effect.gen(function*() {
      const mine = yield* setup(10_000)
      const theirs = yield* setup(10_000)
      const task = yield* submit(theirs.key)
      const foreign = yield* send("GET", `/api/v1/ai-tasks/${String(task.body.id)}`, { key: mine.key })
      const missing = yield* send("GET", "/api/v1/ai-tasks/task_doesNotExist0000", { key: mine.key })
      assert.strictEqual(foreign.status, 404)
      assert.strictEqual(foreign.body.code, "not_found")
      assert.deepStrictEqual({ ...foreign.body, requestId: null }, { ...missing.body, requestId: null })
    }).pipe(Effect.provide(AppUnderTest())))
})

describe("/api/v1/usage", () => {
  it.effect("GET /usage answers this month's spend, reservations, caps and credit", () =>
    Effect.gen(function*() {
      const { key, workspaceId } = yield* setup(10_000)
      yield* setCaps(workspaceId, { taskCap: 5 })
      yield* submit(key)
      const reply = yield* send("GET", "/api/v1/usage", { key })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(Object.keys(reply.body).sort(), [
        "aiSpendMicros",
        "availableCreditMicros",
        "caps",
        "creditBalanceMicros",
        "month",
        "reservedMicros",
        "taskCount"
      ])
      assert.match(String(reply.body.month), /^\d{4}-(0[1-9]|1[0-2])$/)
      assert.deepInclude(reply.body, {
        aiSpendMicros: 0,
        reservedMicros: worstHello,
        taskCount: 1,
        caps: { aiSpendMicros: null, aiTasks: 5 },
        creditBalanceMicros: 10_000,
        availableCreditMicros: 10_000 - worstHello
      })
    }).pipe(Effect.provide(AppUnderTest())))
})
