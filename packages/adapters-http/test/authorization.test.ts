import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedKey, send } from "./harness.ts"
import { TestAppUnderTest } from "./test-api.ts"

const body = JSON.stringify({ message: "hi" })

describe("authorization", () => {
  it.effect("a read-only key is refused a webhooks:write operation with 403 insufficient_scope", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const reply = yield* send("POST", "/api/v1/test/echo", { key, body })
      assert.strictEqual(reply.status, 403)
      assert.strictEqual(reply.body.code, "insufficient_scope")
      assert.strictEqual(reply.body.requiredScope, "webhooks:write")
      assert.strictEqual(reply.headers["content-type"], "application/problem+json")
      assert.strictEqual(
        reply.headers["www-authenticate"],
        `Bearer realm="atrium", error="insufficient_scope", scope="webhooks:write"`
      )
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("the named scope, or write, is enough", () =>
    Effect.gen(function*() {
      const webhooks = yield* seedKey({ name: "Hooks", scopes: ["webhooks:write"] })
      const writer = yield* seedKey({ name: "Writer", scopes: ["write"] })
      assert.strictEqual((yield* send("POST", "/api/v1/test/echo", { key: webhooks.key, body })).status, 200)
      assert.strictEqual((yield* send("POST", "/api/v1/test/echo", { key: writer.key, body })).status, 200)
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("a write endpoint without an annotation needs write (fail closed)", () =>
    Effect.gen(function*() {
      const webhooks = yield* seedKey({ name: "Hooks", scopes: ["webhooks:write", "ai_tasks:write"] })
      const refused = yield* send("POST", "/api/v1/test/unannotated", { key: webhooks.key, body })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(refused.body.requiredScope, "write")
      const writer = yield* seedKey({ name: "Writer", scopes: ["write"] })
      assert.strictEqual((yield* send("POST", "/api/v1/test/unannotated", { key: writer.key, body })).status, 200)
    }).pipe(Effect.provide(TestAppUnderTest())))

  it.effect("authentication runs before scopes and before the body is decoded", () =>
    Effect.gen(function*() {
      const reply = yield* send("POST", "/api/v1/test/echo", { body: "{not json" })
      assert.strictEqual(reply.status, 401)
      assert.strictEqual(reply.body.code, "missing_credentials")
    }).pipe(Effect.provide(TestAppUnderTest())))
})
