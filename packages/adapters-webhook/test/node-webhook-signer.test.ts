import { assert, describe, it } from "@effect/vitest"
import { WebhookTransportNode } from "@atrium/adapters-webhook"
import { signWebhook, WebhookSigner } from "@atrium/domain"
import { Effect, Redacted } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { Webhook as SvixWebhook } from "svix"

const secrets = [
  Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
  Redacted.make(`whsec_${Buffer.from("a second, rotated-in signing key!").toString("base64")}`)
]
const message = { id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", timestamp: 1_700_000_000, body: JSON.stringify({ type: "task.created", data: { title: "ünïcödé ✓" } }) }

describe("WebhookTransportNode.signer", () => {
  it.effect("signs exactly as Web Crypto does, one signature per key, verified by standardwebhooks and svix", () =>
    Effect.gen(function*() {
      const node = yield* signWebhook(secrets, message).pipe(Effect.provideService(WebhookSigner, WebhookTransportNode.signer))
      const webCrypto = yield* signWebhook(secrets, message)
      assert.strictEqual(node, webCrypto)
      assert.strictEqual(node.split(" ").length, 2)
      const headers = { "webhook-id": message.id, "webhook-timestamp": String(message.timestamp), "webhook-signature": node }
      for (const secret of secrets) {
        const text = Redacted.value(secret)
        assert.strictEqual(new StandardWebhook(text.slice("whsec_".length)).sign(message.id, new Date(message.timestamp * 1000), message.body), node.split(" ")[secrets.indexOf(secret)])
        // svix checks the timestamp against the clock, so it verifies a signature made now.
        const now = Math.floor(Date.now() / 1000)
        const fresh = yield* signWebhook([secret], { ...message, timestamp: now }).pipe(Effect.provideService(WebhookSigner, WebhookTransportNode.signer))
        assert.deepStrictEqual(new SvixWebhook(text).verify(message.body, { ...headers, "webhook-timestamp": String(now), "webhook-signature": fresh }), JSON.parse(message.body))
      }
    }))

  it.effect("is the signer the Node transport layer brings", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* WebhookSigner, WebhookTransportNode.signer)
    }).pipe(Effect.provide(WebhookTransportNode.layerWith({ allowNetworks: [] }))))
})
