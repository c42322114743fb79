import { assert, describe, it } from "@effect/vitest"
import { Domain, PushServiceMemory } from "@atrium/domain/testing"
import { Effect, Layer } from "effect"

const names = Effect.map(Domain.work, (works) => works.map((work) => [work.name, work.announcedOn ?? null]))

describe("the worker registry", () => {
  it.effect("lists every area's queue once, with the channels that announce webhook deliveries and AI tasks", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* names, [
        ["WebhookDeliveries", "webhook_deliveries"],
        ["AiTasks", "ai_tasks"],
        ["schedules", null],
        ["mail", null],
        ["password-reset", null],
        ["domain-verification", null],
        ["store-notifications", null],
        ["purchase-reconciler", null]
      ])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("adds the push outbox and its receipts only where push is configured", () =>
    Effect.gen(function*() {
      const listed = (yield* names).map(([name]) => name)
      assert.includeMembers(listed, ["push-sender", "push-receipts"])
      assert.strictEqual(new Set(listed).size, listed.length)
    }).pipe(Effect.provide(Domain.layerMemory.pipe(Layer.provideMerge(PushServiceMemory)))))
})
