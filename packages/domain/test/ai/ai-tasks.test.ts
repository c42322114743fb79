import { assert, describe, it } from "@effect/vitest"
import {
  AiTasks,
  ApiKeyId,
  ApiKeyPrincipal,
  defaultModelCatalog,
  Entitlements,
  Feature,
  type SubmitAiTaskInput,
  TaskId,
  toAiTaskView,
  Transactor,
  Usage,
  type WorkspaceId,
  Workspaces,
  worstCaseCostMicros
} from "@atrium/domain"
import { Domain, MemoryStore, providerCompletes, providerFails, providerHangs, runDueTasks, ScriptedProvider, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Fiber, Option, Ref } from "effect"
import { TestClock } from "effect/testing"

const localModel = defaultModelCatalog[0]

// For atrium-local-1 (0.1 USD in / 0.4 USD out per MTok) and the prompt "hello":
// worst case = ceil(5 bytes × 0.1) + ceil(4000 × 0.4) = 1 + 1600; the local model then uses 2 input tokens and
// 6 output tokens ("[atrium-local-1] hello", 22 bytes): ceil(2 × 0.1) + ceil(6 × 0.4) = 1 + 3.
const worstHello = 1601
const costHello = 4

const state = Effect.gen(function*() {
  return yield* Ref.get((yield* MemoryStore).state)
})

/** A workspace entitled to `ai.basic`, with `credits` micro-USD. */
const setup = (credits: number, options: { readonly entitled?: boolean } = {}) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
    if (options.entitled !== false) {
      yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
    }
    if (credits > 0) yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), credits)
    return workspace.id
  })

/** "hello" submitted by an API key of `workspaceId` that may submit tasks: the principal and the input. */
const hello = (workspaceId: WorkspaceId, extra: Partial<SubmitAiTaskInput> = {}): readonly [ApiKeyPrincipal, SubmitAiTaskInput] => [
  new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_test"), workspaceId, scopes: ["ai_tasks:write"] }),
  { model: "atrium-local-1", input: { prompt: "hello" }, ...extra }
]

const submit = (submission: readonly [ApiKeyPrincipal, SubmitAiTaskInput]) =>
  Effect.gen(function*() {
    return yield* (yield* AiTasks).submit(...submission)
  })

const runDue = Effect.gen(function*() {
  return yield* runDueTasks(100)
})

const account = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    return (yield* state).billingAccounts.get(workspaceId)
  })

describe("AiTasks.submit: authorization in the contract's order", () => {
  it.effect("the worst case of the reference request is what the comments say", () =>
    Effect.sync(() => {
      assert.isDefined(localModel)
      if (localModel === undefined) return
      assert.strictEqual(worstCaseCostMicros(localModel, { prompt: "hello" }, localModel.maxOutputTokens), worstHello)
    }))

  it.effect("a model missing from the catalog is 400 invalid_request, and nothing is reserved", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const error = yield* submit(hello(ws, { model: "gpt-9" })).pipe(Effect.flip)
      assert.strictEqual(error._tag, "InvalidInput")
      assert.strictEqual(error.code, "invalid_request")
      const s = yield* state
      assert.strictEqual(s.aiTasks.size, 0)
      assert.strictEqual(s.billingAccounts.get(ws)?.reservedMicros, 0)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a model missing from the catalog is refused before entitlement and credits are looked at", () =>
    Effect.gen(function*() {
      const ws = yield* setup(0, { entitled: false })
      const error = yield* submit(hello(ws, { model: "gpt-9" })).pipe(Effect.flip)
      assert.strictEqual(error.code, "invalid_request")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a workspace without the model's feature is 403 not_entitled, even with credits", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000, { entitled: false })
      const error = yield* submit(hello(ws)).pipe(Effect.flip)
      assert.strictEqual(error._tag, "NotEntitled")
      assert.strictEqual(error.code, "not_entitled")
      assert.deepInclude(error, { feature: "ai.basic" })
      // Entitled to a different feature is still not entitled to this model's.
      const other = yield* submit(hello(ws, { model: "gpt-4o" })).pipe(Effect.flip)
      assert.deepInclude(other, { code: "not_entitled", feature: "ai.advanced" })
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("not entitled comes before the credit check", () =>
    Effect.gen(function*() {
      const ws = yield* setup(0, { entitled: false })
      assert.strictEqual((yield* submit(hello(ws)).pipe(Effect.flip)).code, "not_entitled")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a revoked entitlement stops submissions and emits entitlement.revoked", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const revoked = yield* (yield* Entitlements).revoke(systemPrincipal(ws), { feature: Feature.make("ai.basic") })
      assert.strictEqual(revoked.length, 1)
      assert.isTrue(revoked.every((grant) => Option.isSome(grant.expiresAt)))
      assert.strictEqual((yield* submit(hello(ws)).pipe(Effect.flip)).code, "not_entitled")
      const events = (yield* state).events.filter((e) => e.type === "entitlement.revoked")
      assert.deepStrictEqual(events.map((e) => e.data), [{ feature: "ai.basic", source: "plan", expiresAt: "1970-01-01T00:00:00.000Z", purchaseId: null }])
      const again = yield* (yield* Entitlements).revoke(systemPrincipal(ws), { feature: Feature.make("ai.basic") }).pipe(Effect.flip)
      assert.strictEqual(again.code, "not_found")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a worst case exactly at the spend cap is accepted and reserved", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* (yield* Usage).setCaps(systemPrincipal(ws), { spendCapMicros: worstHello })
      const { task } = yield* submit(hello(ws))
      assert.strictEqual(task.status, "queued")
      assert.strictEqual(task.reservedMicros, worstHello)
      const usage = yield* (yield* Usage).current(systemPrincipal(ws))
      assert.strictEqual(usage.reservedMicros, worstHello)
      assert.strictEqual(usage.taskCount, 1)
      assert.strictEqual(usage.availableCreditMicros, 10_000 - worstHello)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a worst case one micro over the spend cap is 402 usage_cap_reached", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* (yield* Usage).setCaps(systemPrincipal(ws), { spendCapMicros: worstHello - 1 })
      const error = yield* submit(hello(ws)).pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "UsageCapReached", code: "usage_cap_reached", meter: "ai_spend" })
      assert.strictEqual((yield* account(ws))?.reservedMicros, 0)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("reservations count against the cap: a second task that would exceed it is refused", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* (yield* Usage).setCaps(systemPrincipal(ws), { spendCapMicros: 2 * worstHello - 1 })
      yield* submit(hello(ws))
      assert.strictEqual((yield* submit(hello(ws)).pipe(Effect.flip)).code, "usage_cap_reached")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the monthly task cap is 402 usage_cap_reached on the ai_tasks meter", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* (yield* Usage).setCaps(systemPrincipal(ws), { taskCap: 1 })
      yield* submit(hello(ws))
      const error = yield* submit(hello(ws)).pipe(Effect.flip)
      assert.deepInclude(error, { code: "usage_cap_reached", meter: "ai_tasks" })
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("credits one micro short of the worst case are 402 insufficient_credits; exactly enough is accepted", () =>
    Effect.gen(function*() {
      const poor = yield* setup(worstHello - 1)
      const error = yield* submit(hello(poor)).pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "InsufficientCredits", code: "insufficient_credits" })
      const exact = yield* setup(worstHello)
      const { task } = yield* submit(hello(exact))
      assert.strictEqual(task.reservedMicros, worstHello)
      assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(exact))).availableCreditMicros, 0)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a smaller maxOutputTokens reserves less; above the model's maximum is 400", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const { task } = yield* submit(hello(ws, { maxOutputTokens: 10 }))
      assert.strictEqual(task.reservedMicros, 1 + 4)
      assert.strictEqual(task.maxOutputTokens, 10)
      const error = yield* submit(hello(ws, { maxOutputTokens: 4_001 })).pipe(Effect.flip)
      assert.strictEqual(error.code, "invalid_request")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("input over 64 KiB of UTF-8 and malformed metadata are 400", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1_000_000)
      // 21,846 three-byte characters: 65,538 bytes, under 64 Ki characters.
      const big = yield* submit(hello(ws, { input: { prompt: "€".repeat(21_846) } })).pipe(Effect.flip)
      assert.strictEqual(big.code, "invalid_request")
      const fits = yield* submit(hello(ws, { input: { prompt: "€".repeat(21_845) } }))
      assert.strictEqual(fits.task.status, "queued")
      const noMessages = yield* submit(hello(ws, { input: { messages: [] } })).pipe(Effect.flip)
      assert.strictEqual(noMessages.code, "invalid_request")
      const metadata = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"]))
      assert.strictEqual((yield* submit(hello(ws, { metadata })).pipe(Effect.flip)).code, "invalid_request")
      assert.strictEqual((yield* submit(hello(ws, { metadata: { ["k".repeat(41)]: "v" } })).pipe(Effect.flip)).code, "invalid_request")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("50 concurrent submissions racing for credits worth 10 worst cases: exactly 10 win", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10 * worstHello)
      const results = yield* Effect.all(
        Array.from({ length: 50 }, () => submit(hello(ws)).pipe(Effect.result)),
        { concurrency: "unbounded" }
      )
      const won = results.filter((r) => r._tag === "Success")
      const lost = results.flatMap((r) => r._tag === "Failure" ? [r.failure] : [])
      assert.strictEqual(won.length, 10)
      assert.strictEqual(lost.length, 40)
      assert.isTrue(lost.every((e) => e.code === "insufficient_credits"))
      const held = yield* account(ws)
      assert.strictEqual(held?.reservedMicros, 10 * worstHello)
      assert.isTrue((held?.reservedMicros ?? Infinity) <= (held?.creditBalanceMicros ?? 0))
      assert.strictEqual((yield* state).aiTasks.size, 10)
      // Running them all charges the real cost, which never exceeds the balance.
      yield* runDue
      const settled = yield* (yield* Usage).current(systemPrincipal(ws))
      assert.strictEqual(settled.aiSpendMicros, 10 * costHello)
      assert.strictEqual(settled.reservedMicros, 0)
      assert.strictEqual(settled.creditBalanceMicros, 10 * worstHello - 10 * costHello)
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("AiTasks.submit: Idempotency-Key", () => {
  it.effect("the same key and body answer with the first task, reserved once", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const first = yield* submit(hello(ws, { idempotencyKey: "order-1" }))
      const again = yield* submit(hello(ws, { idempotencyKey: "order-1" }))
      assert.isFalse(first.replayed)
      assert.isTrue(again.replayed)
      assert.strictEqual(again.task.id, first.task.id)
      assert.strictEqual((yield* state).aiTasks.size, 1)
      assert.strictEqual((yield* account(ws))?.reservedMicros, worstHello)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the same key with a different body is 409 idempotency_key_reused", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* submit(hello(ws, { idempotencyKey: "order-1" }))
      const error = yield* submit(hello(ws, { idempotencyKey: "order-1", input: { prompt: "hello!" } })).pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "IdempotencyKeyReused", code: "idempotency_key_reused" })
      const metadata = yield* submit(hello(ws, { idempotencyKey: "order-1", metadata: { a: "b" } })).pipe(Effect.flip)
      assert.strictEqual(metadata.code, "idempotency_key_reused")
      assert.strictEqual((yield* state).aiTasks.size, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("keys are per workspace", () =>
    Effect.gen(function*() {
      const a = yield* setup(10_000)
      const b = yield* setup(10_000)
      const first = yield* submit(hello(a, { idempotencyKey: "k" }))
      const other = yield* submit(hello(b, { idempotencyKey: "k" }))
      assert.isFalse(other.replayed)
      assert.notStrictEqual(other.task.id, first.task.id)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("concurrent duplicates create one task", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const results = yield* Effect.all(
        Array.from({ length: 20 }, () => submit(hello(ws, { idempotencyKey: "burst" }))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(results.map((r) => r.task.id)).size, 1)
      assert.strictEqual(results.filter((r) => !r.replayed).length, 1)
      assert.strictEqual((yield* state).aiTasks.size, 1)
      assert.strictEqual((yield* account(ws))?.reservedMicros, worstHello)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a refused submission leaves its key unused, so a retry after topping up goes through", () =>
    Effect.gen(function*() {
      const ws = yield* setup(0)
      assert.strictEqual((yield* submit(hello(ws, { idempotencyKey: "retry" })).pipe(Effect.flip)).code, "insufficient_credits")
      yield* (yield* Usage).addCredits(systemPrincipal(ws), worstHello)
      const { replayed, task } = yield* submit(hello(ws, { idempotencyKey: "retry" }))
      assert.isFalse(replayed)
      assert.strictEqual(task.status, "queued")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a submission inside the caller's transaction commits with it (no batch waits behind the caller): rolled back, it leaves neither task nor key", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const tx = yield* Transactor
      const joined = hello(ws, { idempotencyKey: "joined" })
      const failed = yield* tx.withTransaction(submit(joined).pipe(Effect.andThen(Effect.fail("rolled back")))).pipe(Effect.flip)
      assert.strictEqual(failed, "rolled back")
      assert.strictEqual((yield* state).aiTasks.size, 0)
      assert.strictEqual((yield* state).idempotencyKeys.size, 0)
      const committed = yield* tx.withTransaction(submit(joined))
      assert.isFalse(committed.replayed)
      const again = yield* submit(hello(ws, { idempotencyKey: "joined" }))
      assert.isTrue(again.replayed)
      assert.strictEqual(again.task.id, committed.task.id)
      assert.strictEqual((yield* account(ws))?.reservedMicros, worstHello)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a key expires after 24 hours", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const first = yield* submit(hello(ws, { idempotencyKey: "daily" }))
      yield* TestClock.adjust("23 hours")
      assert.isTrue((yield* submit(hello(ws, { idempotencyKey: "daily" }))).replayed)
      yield* TestClock.adjust("1 hour")
      const later = yield* submit(hello(ws, { idempotencyKey: "daily", input: { prompt: "a new day" } }))
      assert.isFalse(later.replayed)
      assert.notStrictEqual(later.task.id, first.task.id)
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("AiTasks execution", () => {
  it.effect("a succeeded task has output, usage and cost; credits are debited and a usage record and event written", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const { task } = yield* submit(hello(ws, { metadata: { order: "42" } }))
      const [done] = yield* runDue
      assert.strictEqual(done?.status, "succeeded")
      const fetched = yield* (yield* AiTasks).get(systemPrincipal(ws), task.id)
      assert.deepStrictEqual(fetched.output, Option.some("[atrium-local-1] hello"))
      assert.deepStrictEqual(fetched.inputTokens, Option.some(2))
      assert.deepStrictEqual(fetched.outputTokens, Option.some(6))
      assert.deepStrictEqual(fetched.costMicros, Option.some(costHello))
      assert.deepStrictEqual(fetched.metadata, { order: "42" })
      assert.strictEqual(fetched.attempts, 1)
      assert.isTrue(Option.isSome(fetched.startedAt) && Option.isSome(fetched.finishedAt))
      assert.deepInclude(toAiTaskView(fetched), {
        id: task.id,
        status: "succeeded",
        output: "[atrium-local-1] hello",
        usage: { inputTokens: 2, outputTokens: 6, costMicros: costHello },
        error: null
      })
      assert.deepInclude(toAiTaskView(task), { status: "queued", usage: null, output: null, createdAt: "1970-01-01T00:00:00.000Z" })
      const held = yield* account(ws)
      assert.strictEqual(held?.creditBalanceMicros, 10_000 - costHello)
      assert.strictEqual(held?.reservedMicros, 0)
      const s = yield* state
      assert.deepStrictEqual(s.usageRecords.map((r) => [r.taskId, r.costMicros, r.inputTokens, r.outputTokens, r.month]), [[task.id, costHello, 2, 6, "1970-01"]])
      const events = s.events.filter((e) => e.type === "ai_task.succeeded")
      assert.deepStrictEqual(events.map((e) => e.data), [{
        task: { id: task.id, model: "atrium-local-1", status: "succeeded", usage: { inputTokens: 2, outputTokens: 6, costMicros: costHello }, finishedAt: "1970-01-01T00:00:00.000Z" }
      }])
      assert.deepStrictEqual(
        s.audit.filter((a) => a.target === task.id).map((a) => a.action),
        ["ai_task.submitted", "ai_task.succeeded"]
      )
      // Submission itself emits no event.
      assert.isFalse(s.events.some((e) => e.type.startsWith("ai_task.") && e.type !== "ai_task.succeeded"))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("chat input: the local model answers the last user message", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* submit(hello(ws, {
        input: { messages: [{ role: "system", content: "be brief" }, { role: "user", content: "ping" }, { role: "assistant", content: "…" }] }
      }))
      const [done] = yield* runDue
      assert.deepStrictEqual(done?.output, Option.some("[atrium-local-1] ping"))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a provider reporting more than 2^31-1 tokens (or negative, or fractional) fails that task as provider_invalid_response, charging nothing", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const answers = [
        { output: "x", inputTokens: 2 ** 31, outputTokens: 1 },
        { output: "x", inputTokens: 1, outputTokens: -1 },
        { output: "x", inputTokens: 1.5, outputTokens: 1 }
      ]
      yield* Ref.set((yield* ScriptedProvider).script, answers.map(providerCompletes))
      for (const _ of answers) yield* submit(hello(ws))
      const done = yield* runDue
      assert.deepStrictEqual(done.map((task) => Option.map(task.error, (e) => e.code)), answers.map(() => Option.some("provider_invalid_response")))
      assert.strictEqual((yield* account(ws))?.reservedMicros, 0)
      assert.strictEqual((yield* account(ws))?.creditBalanceMicros, 10_000)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("another workspace's task is not found", () =>
    Effect.gen(function*() {
      const a = yield* setup(10_000)
      const b = yield* setup(10_000)
      const { task } = yield* submit(hello(a))
      const error = yield* (yield* AiTasks).get(systemPrincipal(b), task.id).pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "NotFound", code: "not_found" })
      const missing = yield* (yield* AiTasks).get(systemPrincipal(a), TaskId.make("task_missing")).pipe(Effect.flip)
      assert.strictEqual(missing.code, "not_found")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a provider failure fails the task at no charge and releases the reservation", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* Ref.set((yield* ScriptedProvider).script, [providerFails("provider_rejected", false, "content policy")])
      const { task } = yield* submit(hello(ws))
      const [done] = yield* runDue
      assert.strictEqual(done?.status, "failed")
      assert.deepStrictEqual(done?.costMicros, Option.some(0))
      assert.deepStrictEqual(done?.error, Option.some({ code: "provider_rejected", message: "content policy" }))
      const held = yield* account(ws)
      assert.strictEqual(held?.creditBalanceMicros, 10_000)
      assert.strictEqual(held?.reservedMicros, 0)
      const usage = yield* (yield* Usage).current(systemPrincipal(ws))
      assert.deepInclude(usage, { aiSpendMicros: 0, reservedMicros: 0, taskCount: 0 })
      const s = yield* state
      assert.strictEqual(s.usageRecords.length, 0)
      assert.deepStrictEqual(s.events.filter((e) => e.type === "ai_task.failed").map((e) => e.data), [{
        task: { id: task.id, model: "atrium-local-1", status: "failed", error: { code: "provider_rejected", message: "content policy" }, finishedAt: "1970-01-01T00:00:00.000Z" }
      }])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a retryable failure requeues the task with a backoff, then succeeds, charged once", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* Ref.set((yield* ScriptedProvider).script, [providerFails("provider_rate_limited", true), providerFails("provider_unavailable", true)])
      yield* submit(hello(ws))
      const [first] = yield* runDue
      assert.strictEqual(first?.status, "queued")
      assert.deepStrictEqual(Option.map(first?.nextAttemptAt ?? Option.none(), DateTime.toEpochMillis), Option.some(10_000))
      assert.deepStrictEqual(yield* runDue, [])
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* runDue)[0]?.status, "queued")
      yield* TestClock.adjust("60 seconds")
      const [third] = yield* runDue
      assert.strictEqual(third?.status, "succeeded")
      assert.strictEqual(third?.attempts, 3)
      assert.strictEqual((yield* account(ws))?.creditBalanceMicros, 10_000 - costHello)
      assert.strictEqual((yield* state).usageRecords.length, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("retryable failures on every attempt fail the task after three attempts, at no charge", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* Ref.set((yield* ScriptedProvider).script, [1, 2, 3].map(() => providerFails("provider_unavailable", true)))
      yield* submit(hello(ws))
      yield* runDue
      yield* TestClock.adjust("10 seconds")
      yield* runDue
      yield* TestClock.adjust("60 seconds")
      const [last] = yield* runDue
      assert.strictEqual(last?.status, "failed")
      assert.strictEqual(last?.attempts, 3)
      assert.strictEqual((yield* Ref.get((yield* ScriptedProvider).calls)).length, 3)
      assert.deepInclude(yield* account(ws), { creditBalanceMicros: 10_000, reservedMicros: 0 })
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a provider that hangs is cut off by the 60 s timeout and retried", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      yield* Ref.set((yield* ScriptedProvider).script, [providerHangs])
      yield* submit(hello(ws))
      const fiber = yield* Effect.forkChild(runDue)
      yield* TestClock.adjust("60 seconds")
      const [timedOut] = yield* Fiber.join(fiber)
      assert.strictEqual(timedOut?.status, "queued")
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* runDue)[0]?.status, "succeeded")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a worker that crashes mid-task: the task is claimed again after the lease and charged once", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const tasks = yield* AiTasks
      yield* Ref.set((yield* ScriptedProvider).script, [providerHangs])
      yield* submit(hello(ws))
      const [claimed] = yield* tasks.claim(10)
      assert.isDefined(claimed)
      if (claimed === undefined) return
      // The worker dies while the provider is working on it.
      const crashed = yield* Effect.forkChild(tasks.execute(claimed))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(crashed)
      assert.deepStrictEqual(yield* tasks.claim(10), [], "leased: nobody else takes it yet")
      yield* TestClock.adjust("90 seconds")
      const [retried] = yield* tasks.claim(10)
      assert.strictEqual(retried?.id, claimed.id)
      assert.strictEqual(retried?.attempts, 2)
      if (retried === undefined) return
      assert.strictEqual((yield* tasks.execute(retried)).status, "succeeded")
      // A stale worker finishing the same task later changes nothing.
      assert.strictEqual((yield* tasks.execute(claimed)).status, "succeeded")
      const s = yield* state
      assert.strictEqual(s.billingAccounts.get(ws)?.creditBalanceMicros, 10_000 - costHello)
      assert.strictEqual(s.usageRecords.length, 1)
      assert.strictEqual(s.events.filter((e) => e.type === "ai_task.succeeded").length, 1)
      assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).aiSpendMicros, costHello)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a task whose workers keep crashing fails after the attempt limit, at no charge", () =>
    Effect.gen(function*() {
      const ws = yield* setup(10_000)
      const tasks = yield* AiTasks
      yield* submit(hello(ws))
      for (let crash = 0; crash < 3; crash++) {
        assert.strictEqual((yield* tasks.claim(10)).length, 1)
        yield* TestClock.adjust("91 seconds")
      }
      const [last] = yield* runDue
      assert.strictEqual(last?.status, "failed")
      assert.strictEqual(Option.getOrNull(last?.error ?? Option.none())?.code, "provider_error")
      assert.strictEqual((yield* Ref.get((yield* ScriptedProvider).calls)).length, 0)
      assert.deepInclude(yield* account(ws), { creditBalanceMicros: 10_000, reservedMicros: 0 })
    }).pipe(Effect.provide(Domain.layerMemory)))
})
