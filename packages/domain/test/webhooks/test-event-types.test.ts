import { assert, describe, it } from "@effect/vitest"
import { EventType, WebhookEndpoints, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore, ownerPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { Effect, Ref } from "effect"

describe("a test event of a chosen type", () => {
  it.effect("every catalog type can be sent as a test: an example of its payload, to that endpoint only, with its delivery's body", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const endpoints = yield* WebhookEndpoints
      const principal = ownerPrincipal(workspace.id)
      const { endpoint } = yield* endpoints.create(principal, { url: "https://hooks.example.com/a" })
      const { endpoint: other } = yield* endpoints.create(principal, { url: "https://hooks.example.com/b" })
      for (const type of EventType.literals) {
        const delivery = yield* endpoints.sendTest(principal, endpoint.id, type)
        const found = yield* endpoints.delivery(principal, delivery.id)
        assert.strictEqual(found.delivery.endpointId, endpoint.id)
        assert.strictEqual(found.event._tag, "Some", type)
        if (found.event._tag === "Some") assert.strictEqual(found.event.value.type, type)
      }
      const state = yield* Ref.get((yield* MemoryStore).state)
      const deliveries = Array.from(state.deliveries.values())
      assert.strictEqual(deliveries.length, EventType.literals.length)
      assert.isFalse(deliveries.some((delivery) => delivery.endpointId === other.id))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("without a type the test event is webhook.test", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const endpoints = yield* WebhookEndpoints
      const { endpoint } = yield* endpoints.create(ownerPrincipal(workspace.id), { url: "https://hooks.example.com/a" })
      const delivery = yield* endpoints.sendTest(ownerPrincipal(workspace.id), endpoint.id)
      const found = yield* endpoints.delivery(ownerPrincipal(workspace.id), delivery.id)
      assert.strictEqual(found.event._tag === "Some" ? found.event.value.type : "", "webhook.test")
    }).pipe(Effect.provide(Domain.layerMemory)))
})
