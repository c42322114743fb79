import {
  AiProvider,
  AiTasks,
  ApiKeyId,
  AuditLog,
  EventOutbox,
  ApiKeyPrincipal,
  completeLocally,
  Entitlements,
  Feature,
  runWorker,
  type SubmitAiTaskInput,
  Usage,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { Domain, runDueTasks, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Latch, Layer, Option } from "effect"
import type { Ports } from "../src/index.ts"
import { StorageProbe } from "./storage-probe.ts"

// For atrium-local-1 and the prompt "hello": worst case ceil(5 × 0.1) + ceil(4000 × 0.4) = 1601 micro-USD; the local
// model then uses 2 input and 6 output tokens, costing 1 + 3 (see the domain's ai-tasks tests).
export const worstHello = 1601
const costHello = 4

// The whole domain, AI included, over the ports under test with `provider` (the local one needs no network).
export const domainWith = (provider: Layer.Layer<AiProvider>) => Domain.layerOver(Layer.empty, { replace: provider })
export const domain = domainWith(AiProvider.layer)

// The local provider, except that a prompt "poison" reports 2^31 input tokens and a prompt "die" kills its call.
const poisonProvider = Layer.succeed(AiProvider, AiProvider.of({
  complete: (request) => {
    const prompt = "prompt" in request.input ? request.input.prompt : ""
    if (prompt === "die") return Effect.die(new Error("a bug in one task"))
    const completion = completeLocally(request)
    return Effect.succeed(prompt === "poison" ? { ...completion, inputTokens: 2 ** 31 } : completion)
  }
}))

/** A workspace entitled to `ai.basic`, holding `credits` micro-USD. */
export const setup = (credits: number) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
    yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
    yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), credits)
    return workspace.id
  })

/** "hello" submitted by an API key of `workspaceId` that may submit tasks: the principal and the input. */
export const hello = (workspaceId: WorkspaceId, extra: Partial<SubmitAiTaskInput> = {}): readonly [ApiKeyPrincipal, SubmitAiTaskInput] => [
  new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_test"), workspaceId, scopes: ["ai_tasks:write"] }),
  { model: "atrium-local-1", input: { prompt: "hello" }, ...extra }
]

// Counted below the ports, so nothing the domain caches or returns can hide an extra row.
const storedTasks = (workspaceId: WorkspaceId) => Effect.gen(function*() {
  return yield* (yield* StorageProbe).count("ai_tasks", workspaceId)
})

/** The domain's money rules over one database target, with as many connections as the target's pool has. */
export const aiDomainContract = <E>(label: string, target: Layer.Layer<Ports | StorageProbe, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`AI tasks and billing end to end on ${label}`, (it) => {
    it.effect("50 concurrent submissions racing for credits worth 10 worst cases: exactly 10 win, and none overspends", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const usage = yield* Usage
        const ws = yield* setup(10 * worstHello)
        const results = yield* Effect.all(
          Array.from({ length: 50 }, () => tasks.submit(...hello(ws)).pipe(Effect.result)),
          { concurrency: "unbounded" }
        )
        const won = results.filter((r) => r._tag === "Success")
        const lost = results.flatMap((r) => r._tag === "Failure" ? [r.failure] : [])
        assert.strictEqual(won.length, 10)
        assert.strictEqual(lost.length, 40)
        assert.deepStrictEqual(new Set(lost.map((e) => e._tag)), new Set(["InsufficientCredits"]))
        const held = yield* usage.current(systemPrincipal(ws))
        assert.strictEqual(held.reservedMicros, 10 * worstHello)
        assert.strictEqual(held.availableCreditMicros, 0)
        assert.strictEqual(held.taskCount, 10)
        assert.strictEqual(yield* storedTasks(ws), 10)

        // Running them charges the real cost once each and releases every reservation.
        const ran = (yield* runDueTasks(100)).filter((task) => task.workspaceId === ws)
        assert.strictEqual(ran.length, 10)
        assert.isTrue(ran.every((task) => task.status === "succeeded"))
        const settled = yield* usage.current(systemPrincipal(ws))
        assert.strictEqual(settled.aiSpendMicros, 10 * costHello)
        assert.strictEqual(settled.reservedMicros, 0)
        assert.strictEqual(settled.creditBalanceMicros, 10 * worstHello - 10 * costHello)
        const records = yield* usage.records(systemPrincipal(ws), { limit: 100, cursor: undefined })
        assert.sameMembers(records.data.map((r) => r.taskId), ran.map((t) => t.id))
        // Settling again (a second worker after a lapsed lease) changes nothing.
        yield* Effect.forEach(won, (r) => r._tag === "Success" ? tasks.execute(r.success.task) : Effect.void, { concurrency: "unbounded" })
        assert.deepStrictEqual(yield* usage.current(systemPrincipal(ws)), settled)
      }).pipe(Effect.provide(domain)))

    it.effect("concurrent submissions never take a workspace past its spend cap or task cap, nor another workspace's budget", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const usage = yield* Usage
        const spendCapped = yield* setup(100 * worstHello)
        yield* usage.setCaps(systemPrincipal(spendCapped), { spendCapMicros: 7 * worstHello })
        const taskCapped = yield* setup(100 * worstHello)
        yield* usage.setCaps(systemPrincipal(taskCapped), { taskCap: 5 })
        const short = yield* setup(3 * worstHello)
        // One interleaved burst, so batches mix the three workspaces.
        const workspaces = [spendCapped, taskCapped, short]
        const results = yield* Effect.all(
          Array.from({ length: 90 }, (_, i) => {
            const ws = workspaces[i % 3] ?? spendCapped
            return tasks.submit(...hello(ws)).pipe(Effect.result, Effect.map((result) => ({ ws, result })))
          }),
          { concurrency: "unbounded" }
        )
        const outcome = (ws: WorkspaceId) => {
          const mine = results.filter((r) => r.ws === ws).map((r) => r.result)
          return {
            won: mine.filter((r) => r._tag === "Success").length,
            refusals: new Set(mine.flatMap((r) => r._tag === "Failure" ? [r.failure._tag === "UsageCapReached" ? `${r.failure._tag}:${r.failure.meter}` : r.failure._tag] : []))
          }
        }
        assert.deepStrictEqual(outcome(spendCapped), { won: 7, refusals: new Set(["UsageCapReached:ai_spend"]) })
        assert.deepStrictEqual(outcome(taskCapped), { won: 5, refusals: new Set(["UsageCapReached:ai_tasks"]) })
        assert.deepStrictEqual(outcome(short), { won: 3, refusals: new Set(["InsufficientCredits"]) })
        const held = [yield* usage.current(systemPrincipal(spendCapped)), yield* usage.current(systemPrincipal(taskCapped)), yield* usage.current(systemPrincipal(short))]
        assert.deepStrictEqual(held.map((h) => h.reservedMicros), [7 * worstHello, 5 * worstHello, 3 * worstHello])
        assert.deepStrictEqual(held.map((h) => h.taskCount), [7, 5, 3])
        assert.deepStrictEqual([yield* storedTasks(spendCapped), yield* storedTasks(taskCapped), yield* storedTasks(short)], [7, 5, 3])
        yield* runDueTasks(100)
      }).pipe(Effect.provide(domain)))

    it.effect("settlements reaching a cap announce it once, with its audit entry, and release every reservation", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const usage = yield* Usage
        const ws = yield* setup(10 * worstHello)
        yield* usage.setCaps(systemPrincipal(ws), { taskCap: 3 })
        yield* Effect.forEach(Array.from({ length: 3 }), () => tasks.submit(...hello(ws)))
        const claimed = (yield* tasks.claim(100)).filter((task) => task.workspaceId === ws)
        // One settlement after another: the cap is reached by the first, and noted, so the others say nothing.
        for (const task of claimed) assert.strictEqual((yield* tasks.execute(task)).status, "succeeded")
        const capEvents = (yield* (yield* EventOutbox).list(ws, { limit: 100, cursor: undefined })).data.filter((e) => e.type === "usage.cap_reached")
        assert.strictEqual(capEvents.length, 1)
        assert.deepInclude(capEvents[0]?.data, { meter: "ai_tasks", cap: 3, used: 3 })
        const audit = (yield* (yield* AuditLog).list(ws, { limit: 100, cursor: undefined })).data
        assert.strictEqual(audit.filter((entry) => entry.action === "usage.cap_reached").length, 1)
        assert.strictEqual(audit.filter((entry) => entry.action === "ai_task.succeeded").length, 3)
        assert.deepInclude(yield* usage.current(systemPrincipal(ws)), {
          aiSpendMicros: 3 * costHello,
          reservedMicros: 0,
          taskCount: 3,
          creditBalanceMicros: 10 * worstHello - 3 * costHello
        })
      }).pipe(Effect.provide(domain)))

    it.effect("a task run by several workers at once (a lease that lapsed mid-call) is settled and charged once", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const usage = yield* Usage
        const ws = yield* setup(10 * worstHello)
        const submitted = yield* Effect.forEach(Array.from({ length: 10 }), () => tasks.submit(...hello(ws)))
        const claimed = (yield* tasks.claim(100)).filter((task) => task.workspaceId === ws)
        assert.strictEqual(claimed.length, submitted.length)
        // Three workers settle each task concurrently; without a row lock each would read it unfinished and charge it.
        const finished = yield* Effect.forEach(
          claimed.flatMap((task) => [task, task, task]),
          tasks.execute,
          { concurrency: "unbounded" }
        )
        assert.isTrue(finished.every((task) => task.status === "succeeded"))
        const settled = yield* usage.current(systemPrincipal(ws))
        assert.strictEqual(settled.aiSpendMicros, 10 * costHello)
        assert.strictEqual(settled.creditBalanceMicros, 10 * worstHello - 10 * costHello)
        assert.strictEqual(settled.reservedMicros, 0)
        assert.strictEqual((yield* usage.records(systemPrincipal(ws), { limit: 100, cursor: undefined })).data.length, 10)
      }).pipe(Effect.provide(domain)))

    it.effect("concurrent submissions with one Idempotency-Key create one task, reserved once", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const ws = yield* setup(100 * worstHello)
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => tasks.submit(...hello(ws, { idempotencyKey: "order-7" }))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((r) => !r.replayed).length, 1)
        assert.strictEqual(new Set(results.map((r) => r.task.id)).size, 1)
        assert.strictEqual(yield* storedTasks(ws), 1)
        assert.strictEqual((yield* (yield* Usage).current(systemPrincipal(ws))).reservedMicros, worstHello)
        // A different body under the same key is refused.
        const reused = yield* tasks.submit(...hello(ws, { idempotencyKey: "order-7", input: { prompt: "hello!" } })).pipe(Effect.flip)
        assert.strictEqual(reused._tag, "IdempotencyKeyReused")
        yield* runDueTasks(100)
      }).pipe(Effect.provide(domain)))

    it.effect("one workspace's poisoned tasks fail alone: an absurd token count and a dying call fail only their own task", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const usage = yield* Usage
        const poisoned = yield* setup(10 * worstHello)
        const healthy = yield* setup(10 * worstHello)
        const submit = (ws: WorkspaceId, prompt: string) => tasks.submit(...hello(ws, { input: { prompt } })).pipe(Effect.map((s) => s.task.id))
        const bad = yield* submit(poisoned, "poison")
        const dead = yield* submit(poisoned, "die")
        const fine = yield* Effect.forEach(["hello", "hello"], (prompt) => submit(poisoned, prompt))
        const others = yield* Effect.forEach(["hello", "hello", "hello", "hello"], (prompt) => submit(healthy, prompt))
        const all = [[poisoned, bad], [poisoned, dead], ...fine.map((id) => [poisoned, id] as const), ...others.map((id) => [healthy, id] as const)] as const
        // A task is settled when its step returns, or once `onDefect` failed the one whose step died.
        const queue = yield* AiTasks.queue
        const allSettled = yield* Latch.make(false)
        let settled = 0
        const settle = Effect.sync(() => ++settled === all.length && allSettled.openUnsafe())
        // The app's worker loop over the app's queue: all eight are claimed in one pass.
        yield* runWorker({
          ...queue,
          step: (task) => queue.step(task).pipe(Effect.tap(settle)),
          onDefect: (task, cause, outcome) => (queue.onDefect?.(task, cause, outcome) ?? Effect.void).pipe(Effect.ensuring(settle))
        }, { concurrency: 16, idlePoll: "20 millis" })
        yield* allSettled.await

        const [first, second, ...rest] = yield* Effect.forEach(all, ([ws, id]) => tasks.get(systemPrincipal(ws), id))
        assert.strictEqual(first?.status, "failed")
        assert.deepStrictEqual(Option.map(first?.error ?? Option.none(), (e) => e.code), Option.some("provider_invalid_response"))
        assert.strictEqual(second?.status, "failed")
        assert.deepStrictEqual(Option.map(second?.error ?? Option.none(), (e) => e.code), Option.some("internal_error"))
        assert.deepStrictEqual(rest.map((task) => task.status), Array(6).fill("succeeded"))
        // The failed ones cost nothing and hold nothing; the healthy workspace paid exactly its four tasks.
        assert.strictEqual((yield* usage.current(systemPrincipal(poisoned))).reservedMicros, 0)
        assert.strictEqual((yield* usage.current(systemPrincipal(poisoned))).aiSpendMicros, 2 * costHello)
        const other = yield* usage.current(systemPrincipal(healthy))
        assert.strictEqual(other.reservedMicros, 0)
        assert.strictEqual(other.aiSpendMicros, 4 * costHello)
      }).pipe(Effect.provide(domainWith(poisonProvider)), Effect.timeout("30 seconds")))
  })
