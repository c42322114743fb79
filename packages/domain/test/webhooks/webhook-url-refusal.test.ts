import { assert, describe, it } from "@effect/vitest"
import { WebhookEndpoints, WebhookTransport, Workspaces } from "@atrium/domain"
import { Domain, ownerPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { Effect, Layer, Logger } from "effect"

// A transport whose SSRF guard refuses the way the real one does: a reason for the caller, a detail naming the address.
const refusingTransport = Layer.succeed(WebhookTransport, WebhookTransport.of({
  send: () => Effect.die("not used"),
  checkDestination: () =>
    Effect.succeed({
      _tag: "Refused",
      reason: "the destination is not allowed",
      detail: "internal.example.com resolves to a blocked address: 10.1.2.3 is private network (10.0.0.0/8)"
    })
}))

describe("a webhook URL refused by the SSRF guard", () => {
  it.effect("tells the caller only that it is not allowed; the resolved address goes to the server log", () => {
    const lines: Array<string> = []
    const capture = Logger.formatJson.pipe(Logger.map((line) => {
      lines.push(line)
    }))
    return Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const endpoints = yield* WebhookEndpoints
      const created = yield* endpoints.create(ownerPrincipal(workspace.id), { url: "https://internal.example.com/hook" }).pipe(Effect.flip)
      assert.strictEqual(created._tag, "InvalidInput")
      assert.strictEqual(created._tag === "InvalidInput" ? created.detail : "", "url refused: the destination is not allowed")
      assert.notInclude(JSON.stringify(created), "10.1.2.3")
      assert.isTrue(lines.some((line) => line.includes("10.1.2.3")), "the address is logged server-side")
    }).pipe(
      Effect.provide(Domain.layerMemoryWith({ replace: refusingTransport })),
      Effect.provide(Logger.layer([capture]))
    )
  })
})
