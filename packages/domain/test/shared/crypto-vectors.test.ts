import { assert, describe, it } from "@effect/vitest"
import { AiTasks, Entitlements, Feature, SecretBox, signWebhook, Usage, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { Effect, Redacted, Ref } from "effect"

// Every vector below was produced by the raw Web Crypto code that `effect/crypto` replaced: rows written before the
// change must still open, verify and match.
const key = Redacted.make("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
const sealedBefore = "v1.AQIDBAUGBwgJCgsM.coIpsI/Lk7QayAAqRiOmcAwzu8yiHTKowiuYFsiDOpLekvi2X4W2x/6c2ZL45oHIkxu6dZJyRZ8MgY34Ylk="
const sealedSecret = "whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci10ZXN0cw=="

describe("sealed secrets, signatures and digests stay byte-compatible", () => {
  it.effect("a secret sealed by the Web Crypto box opens; a new seal has the same shape and opens again", () =>
    Effect.gen(function*() {
      const box = yield* SecretBox
      assert.strictEqual(Redacted.value(yield* box.open(sealedBefore)), sealedSecret)
      const sealed = yield* box.seal(Redacted.make(sealedSecret))
      assert.match(sealed, /^v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]+=*$/)
      assert.strictEqual(sealed.length, sealedBefore.length)
      assert.strictEqual(Redacted.value(yield* box.open(sealed)), sealedSecret)
    }).pipe(Effect.provide(SecretBox.layerWith(key))))

  it.effect("a secret sealed under another key does not open (a defect, never an empty secret)", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit((yield* SecretBox).open(sealedBefore))
      assert.isTrue(exit._tag === "Failure")
    }).pipe(Effect.provide(SecretBox.layerMemory)))

  it.effect("the default (Web Crypto) webhook signer signs Standard Webhooks' published example as before", () =>
    signWebhook([Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")], {
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: "{\"test\": 2432232314}"
    }).pipe(Effect.map((header) => assert.strictEqual(header, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="))))

  it.effect("an AI request's idempotency digest is the SHA-256 hex stored before", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
      yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), 1_000_000)
      yield* (yield* AiTasks).submit(systemPrincipal(workspace.id), {
        model: "atrium-local-1",
        input: { prompt: "hello" },
        maxOutputTokens: 64,
        metadata: { b: "2", a: "1" },
        idempotencyKey: "order-1"
      })
      const entry = (yield* Ref.get((yield* MemoryStore).state)).idempotencyKeys.get(`${workspace.id}/order-1`)
      assert.strictEqual(entry?.requestHash, "6c1eced1a74c73a9f5fe87a252637020d30475553f9a9c90d719837944078dd2")
    }).pipe(Effect.provide(Domain.layerMemory)))
})
