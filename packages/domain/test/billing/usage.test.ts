import { assert, describe, it } from "@effect/vitest"
import {
  actualCostMicros,
  AiTasks,
  Entitlements,
  exceedsInputLimit,
  Feature,
  inputTokenUpperBound,
  ModelId,
  ModelSpec,
  monthOf,
  priceTokens,
  type SubmitAiTaskInput,
  type SystemPrincipal,
  Usage,
  UsageMonth,
  type WorkspaceId,
  Workspaces,
  worstCaseCostMicros
} from "@atrium/domain"
import { Domain, MemoryStore, runDueTasks, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Ref } from "effect"
import { TestClock } from "effect/testing"

const state = Effect.gen(function*() {
  return yield* Ref.get((yield* MemoryStore).state)
})

const setup = (credits: number) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
    yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
    yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), credits)
    return workspace.id
  })

// "hello" with 6 output tokens: the worst case (1 + 3 micros) is exactly what the local model then costs.
const tiny = (workspaceId: WorkspaceId): readonly [SystemPrincipal, SubmitAiTaskInput] => [
  systemPrincipal(workspaceId),
  { model: "atrium-local-1", input: { prompt: "hello" }, maxOutputTokens: 6 }
]
const tinyCost = 4

const runTiny = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    const tasks = yield* AiTasks
    yield* tasks.submit(...tiny(workspaceId))
    return yield* runDueTasks(10)
  })

const capEvents = Effect.gen(function*() {
  return (yield* state).events.filter((e) => e.type === "usage.cap_reached").map((e) => e.data)
})

describe("pricing", () => {
  const spec = ModelSpec.make({
    model: ModelId.make("tiny-hosted"),
    provider: "openai-compatible",
    requiredFeature: Feature.make("ai.standard"),
    inputPriceMicrosPerMTok: 2_500_000,
    outputPriceMicrosPerMTok: 10_000_000,
    maxInputTokens: 10,
    maxOutputTokens: 100,
    description: "A model with a tiny input limit"
  })

  it("prices tokens with ceil, in integer micro-USD, exactly even for huge products", () => {
    assert.strictEqual(priceTokens(1, 100_000), 1)
    assert.strictEqual(priceTokens(10, 100_000), 1)
    assert.strictEqual(priceTokens(11, 100_000), 2)
    assert.strictEqual(priceTokens(0, 100_000), 0)
    // 2^53 + change would lose precision as floats.
    assert.strictEqual(priceTokens(9_007_199, 1_000_000_001), 9_007_199_010)
  })

  it("bounds input tokens by UTF-8 bytes, capped at the model's input limit", () => {
    assert.strictEqual(inputTokenUpperBound(spec, { prompt: "€€" }), 6)
    assert.strictEqual(inputTokenUpperBound(spec, { messages: [{ role: "user", content: "abcdef" }, { role: "assistant", content: "ghijkl" }] }), 10)
    assert.isFalse(exceedsInputLimit(spec, { prompt: "x".repeat(40) }))
    assert.isTrue(exceedsInputLimit(spec, { prompt: "x".repeat(41) }))
  })

  it("never charges more than was reserved", () => {
    const reserved = worstCaseCostMicros(spec, { prompt: "hi" }, 100)
    assert.strictEqual(reserved, priceTokens(2, spec.inputPriceMicrosPerMTok) + priceTokens(100, spec.outputPriceMicrosPerMTok))
    assert.strictEqual(actualCostMicros(spec, { inputTokens: 2, outputTokens: 100 }, reserved), reserved)
    assert.strictEqual(actualCostMicros(spec, { inputTokens: 50, outputTokens: 5_000 }, reserved), reserved)
    assert.isBelow(actualCostMicros(spec, { inputTokens: 1, outputTokens: 1 }, reserved), reserved)
  })

  it("months are UTC calendar months", () => {
    assert.strictEqual(monthOf(DateTime.makeUnsafe("2025-01-31T23:59:59.999Z")), "2025-01")
    assert.strictEqual(monthOf(DateTime.makeUnsafe("2025-02-01T00:00:00.000Z")), "2025-02")
  })
})

describe("Usage", () => {
  it.effect("current month: spend, reservations, caps and credits", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1_000)
      const usage = yield* Usage
      yield* usage.setCaps(systemPrincipal(ws), { spendCapMicros: 500, taskCap: 10 })
      assert.deepStrictEqual(yield* usage.current(systemPrincipal(ws)), {
        month: UsageMonth.make("1970-01"),
        aiSpendMicros: 0,
        reservedMicros: 0,
        taskCount: 0,
        caps: { aiSpendMicros: 500, aiTasks: 10 },
        creditBalanceMicros: 1_000,
        availableCreditMicros: 1_000
      })
      yield* runTiny(ws)
      assert.deepInclude(yield* usage.current(systemPrincipal(ws)), { aiSpendMicros: tinyCost, taskCount: 1, creditBalanceMicros: 1_000 - tinyCost })
      // null removes a cap; leaving a field out keeps it.
      yield* usage.setCaps(systemPrincipal(ws), { spendCapMicros: null })
      assert.deepStrictEqual((yield* usage.current(systemPrincipal(ws))).caps, { aiSpendMicros: null, aiTasks: 10 })
      const actions = (yield* state).audit.map((a) => a.action)
      assert.includeMembers(actions, ["billing.credits_added", "billing.caps_changed"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("credits must be positive integers, caps non-negative integers", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1)
      const usage = yield* Usage
      for (const micros of [0, -5, 1.5, Number.NaN]) {
        assert.strictEqual((yield* usage.addCredits(systemPrincipal(ws), micros).pipe(Effect.flip)).code, "invalid_request")
      }
      assert.strictEqual((yield* usage.setCaps(systemPrincipal(ws), { taskCap: -1 }).pipe(Effect.flip)).code, "invalid_request")
      assert.strictEqual((yield* usage.current(systemPrincipal(ws))).creditBalanceMicros, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("reaching the spend cap is announced once per month, and again the next month", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1_000)
      const usage = yield* Usage
      yield* usage.setCaps(systemPrincipal(ws), { spendCapMicros: 2 * tinyCost })
      yield* runTiny(ws)
      assert.deepStrictEqual(yield* capEvents, [])
      yield* runTiny(ws)
      assert.deepStrictEqual(yield* capEvents, [{ meter: "ai_spend", cap: 8, used: 8, month: "1970-01" }])
      // At the cap, the next task is refused.
      assert.strictEqual((yield* (yield* AiTasks).submit(...tiny(ws)).pipe(Effect.flip)).code, "usage_cap_reached")
      // Raising the cap and reaching it again the same month does not announce again.
      yield* usage.setCaps(systemPrincipal(ws), { spendCapMicros: 3 * tinyCost })
      yield* runTiny(ws)
      assert.strictEqual((yield* capEvents).length, 1)
      yield* TestClock.adjust("31 days")
      for (let i = 0; i < 3; i++) yield* runTiny(ws)
      assert.deepStrictEqual(yield* capEvents, [
        { meter: "ai_spend", cap: 8, used: 8, month: "1970-01" },
        { meter: "ai_spend", cap: 12, used: 12, month: "1970-02" }
      ])
      assert.strictEqual((yield* state).audit.filter((a) => a.action === "usage.cap_reached").length, 2)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("reaching the task cap is announced once", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1_000)
      yield* (yield* Usage).setCaps(systemPrincipal(ws), { taskCap: 2 })
      yield* runTiny(ws)
      yield* runTiny(ws)
      assert.deepStrictEqual(yield* capEvents, [{ meter: "ai_tasks", cap: 2, used: 2, month: "1970-01" }])
      assert.strictEqual((yield* (yield* AiTasks).submit(...tiny(ws)).pipe(Effect.flip)).code, "usage_cap_reached")
      assert.strictEqual((yield* capEvents).length, 1)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("month rollover resets spend, reservations and task count, but not credits", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1_000)
      const usage = yield* Usage
      yield* usage.setCaps(systemPrincipal(ws), { spendCapMicros: tinyCost, taskCap: 1 })
      yield* runTiny(ws)
      assert.deepInclude(yield* usage.current(systemPrincipal(ws)), { month: UsageMonth.make("1970-01"), aiSpendMicros: tinyCost, taskCount: 1 })
      assert.strictEqual((yield* (yield* AiTasks).submit(...tiny(ws)).pipe(Effect.flip)).code, "usage_cap_reached")
      yield* TestClock.adjust("30 days")
      assert.strictEqual((yield* usage.current(systemPrincipal(ws))).month, "1970-01")
      yield* TestClock.adjust("1 day")
      assert.deepStrictEqual(yield* usage.current(systemPrincipal(ws)), {
        month: UsageMonth.make("1970-02"),
        aiSpendMicros: 0,
        reservedMicros: 0,
        taskCount: 0,
        caps: { aiSpendMicros: tinyCost, aiTasks: 1 },
        creditBalanceMicros: 1_000 - tinyCost,
        availableCreditMicros: 1_000 - tinyCost
      })
      const [done] = yield* runTiny(ws)
      assert.strictEqual(done?.status, "succeeded")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a task submitted before the month ends counts, and settles, in the month it was submitted", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1_000)
      const usage = yield* Usage
      yield* TestClock.setTime(Date.UTC(1970, 0, 31, 23, 59, 59, 999))
      yield* (yield* AiTasks).submit(...tiny(ws))
      yield* TestClock.adjust("1 millis")
      yield* runDueTasks(10)
      assert.deepInclude(yield* usage.current(systemPrincipal(ws)), { month: UsageMonth.make("1970-02"), aiSpendMicros: 0, reservedMicros: 0 })
      const january = (yield* state).monthlyUsage.get(`${ws}/1970-01`)
      assert.deepInclude(january, { spentMicros: tinyCost, reservedMicros: 0, taskCount: 1 })
      assert.deepStrictEqual((yield* usage.records(systemPrincipal(ws), { limit: 10, cursor: undefined })).data.map((r) => r.month), ["1970-01"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("tasks of two months settled together charge the one account for all, each month its own, and announce each month's cap once", () =>
    Effect.gen(function*() {
      const ws = yield* setup(1_000)
      const usage = yield* Usage
      const tasks = yield* AiTasks
      yield* usage.setCaps(systemPrincipal(ws), { spendCapMicros: 2 * tinyCost })
      yield* TestClock.setTime(Date.UTC(1970, 0, 31, 23, 59, 59, 990))
      const january = yield* Effect.forEach([1, 2], () => tasks.submit(...tiny(ws)))
      yield* TestClock.adjust("1 second")
      const february = yield* Effect.forEach([1, 2], () => tasks.submit(...tiny(ws)))
      const submitted = [...january, ...february].map((s) => s.task)
      // Every task twice at once (a second worker after a lapsed lease): the settlements share batches.
      const finished = yield* Effect.forEach([...submitted, ...submitted], tasks.execute, { concurrency: "unbounded" })
      assert.isTrue(finished.every((task) => task.status === "succeeded"))
      assert.deepInclude(yield* usage.current(systemPrincipal(ws)), { creditBalanceMicros: 1_000 - 4 * tinyCost, availableCreditMicros: 1_000 - 4 * tinyCost, reservedMicros: 0 })
      const months = (yield* state).monthlyUsage
      assert.deepInclude(months.get(`${ws}/1970-01`), { spentMicros: 2 * tinyCost, reservedMicros: 0, taskCount: 2 })
      assert.deepInclude(months.get(`${ws}/1970-02`), { spentMicros: 2 * tinyCost, reservedMicros: 0, taskCount: 2 })
      assert.deepStrictEqual(yield* capEvents, [
        { meter: "ai_spend", cap: 8, used: 8, month: "1970-01" },
        { meter: "ai_spend", cap: 8, used: 8, month: "1970-02" }
      ])
      assert.strictEqual((yield* usage.records(systemPrincipal(ws), { limit: 10, cursor: undefined })).data.length, 4)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
