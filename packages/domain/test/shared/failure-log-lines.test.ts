import { assert, describe, it } from "@effect/vitest"
import { AiTasks, Entitlements, Feature, Usage, WebhookDeliveries, WebhookEndpoints, Workspaces } from "@atrium/domain"
import { answer, deliverOne, Domain, ownerPrincipal, providerFails, runDueTasks, ScriptedProvider, ScriptedReceiver, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { Effect, Logger, Ref } from "effect"

// Every log line the domain writes, as JSON, for the test to read back.
const captured = () => {
  const lines: Array<string> = []
  const logger = Logger.formatJson.pipe(Logger.map((line) => {
    lines.push(line)
  }))
  return { lines, layer: Logger.layer([logger]) }
}

describe("a log line per failure", () => {
  it.effect("each failed webhook attempt is logged with its delivery, attempt number and error, never the URL or body", () => {
    const log = captured()
    return Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const { endpoint } = yield* (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: "https://hooks.example.com/a?token=s3cr3t" })
      yield* (yield* WebhookEndpoints).sendTest(ownerPrincipal(workspace.id), endpoint.id)
      yield* Ref.set((yield* ScriptedReceiver).script, [answer(500, { responseBody: "upstream body s3cr3t" }), answer(200)])
      const deliveries = yield* WebhookDeliveries
      // One whole step per claimed delivery: sign, send through the transport, record.
      const pass = Effect.gen(function*() {
        for (const claimed of yield* deliveries.claim(10)) yield* deliverOne(claimed)
      })
      yield* pass
      const failures = log.lines.filter((line) => line.includes("webhook attempt failed"))
      assert.strictEqual(failures.length, 1)
      assert.include(failures[0], endpoint.id)
      assert.include(failures[0], "\"attempt\":1")
      assert.include(failures[0], "non_2xx")
      for (const line of log.lines) assert.notInclude(line, "s3cr3t")
    }).pipe(Effect.provide(Domain.layerMemory), Effect.provide(log.layer))
  })

  it.effect("each AI task that ends failed is logged once with its id, model and error code", () => {
    const log = captured()
    return Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
      yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), 1_000_000)
      const { task } = yield* (yield* AiTasks).submit(systemPrincipal(workspace.id), { model: "atrium-local-1", input: { prompt: "hello" } })
      yield* Ref.set((yield* ScriptedProvider).script, [providerFails("provider_rejected", false, "content policy")])
      yield* runDueTasks(10)
      const failures = log.lines.filter((line) => line.includes("AI task failed"))
      assert.strictEqual(failures.length, 1)
      assert.include(failures[0], task.id)
      assert.include(failures[0], "provider_rejected")
      assert.include(failures[0], "atrium-local-1")
    }).pipe(Effect.provide(Domain.layerMemory), Effect.provide(log.layer))
  })
})
