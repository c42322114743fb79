import { assert, describe, it } from "@effect/vitest"
import { Domain, PushServiceMemory } from "@atrium/domain/testing"
import { Effect, Layer } from "effect"

const names = Effect.map(Domain.work, (works) => works.map((work) => [work.name, work.announcedOn ?? null]))

describe("the worker registry", () => {
  it.effect("lists every area's queue once, with the channel that announces each queue whose items requests insert", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* names, [
        ["WebhookDeliveries", "webhook_deliveries"],
        ["AiTasks", "ai_tasks"],
        ["schedules", null],
        ["mail", "mail_messages"],
        ["password-reset", "password_reset_requests"],
        ["domain-verification", null],
        ["store-notifications", "store_notifications"],
        ["purchase-reconciler", null]
      ])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("adds the push outbox and its receipts only where push is configured", () =>
    Effect.gen(function*() {
      const listed = (yield* names).map(([name]) => name)
      assert.includeMembers(listed, ["push-sender", "push-receipts"])
      assert.includeDeepMembers(yield* names, [["push-sender", "push_messages"], ["push-receipts", null]])
      assert.strictEqual(new Set(listed).size, listed.length)
    }).pipe(Effect.provide(Domain.layerMemory.pipe(Layer.provideMerge(PushServiceMemory)))))
})
