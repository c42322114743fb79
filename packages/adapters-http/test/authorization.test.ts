import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { HttpApi } from "effect/http-api"
import { Api, MobileGate, RequiredPermission, V1Gate } from "../src/index.ts"
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

  it.effect("an endpoint that names no permission is refused to everyone, even a write key (fail closed)", () =>
    Effect.gen(function*() {
      const webhooks = yield* seedKey({ name: "Hooks", scopes: ["webhooks:write", "ai_tasks:write"] })
      const refused = yield* send("POST", "/api/v1/test/unannotated", { key: webhooks.key, body })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(refused.body.code, "forbidden")
      const writer = yield* seedKey({ name: "Writer", scopes: ["write"] })
      assert.strictEqual((yield* send("POST", "/api/v1/test/unannotated", { key: writer.key, body })).status, 403)
    }).pipe(Effect.provide(TestAppUnderTest())))

  it("every endpoint of the real Api behind a gate that checks permissions names its permission", () => {
    const missing: Array<string> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint, group, middleware }) => {
        if (![...middleware].some((service) => service.key === V1Gate.key || service.key === MobileGate.key)) return
        const permission = Context.get(endpoint.annotations, RequiredPermission) ?? Context.get(group.annotations, RequiredPermission)
        if (permission === undefined) missing.push(`${endpoint.method} ${endpoint.path}`)
      }
    })
    assert.deepStrictEqual(missing, [])
  })

  it.effect("authentication runs before scopes and before the body is decoded", () =>
    Effect.gen(function*() {
      const reply = yield* send("POST", "/api/v1/test/echo", { body: "{not json" })
      assert.strictEqual(reply.status, 401)
      assert.strictEqual(reply.body.code, "missing_credentials")
    }).pipe(Effect.provide(TestAppUnderTest())))

  it("an API key on /api/v1 and a member session on /api/mobile each pass exactly one gate: its own interface's", () => {
    const middlewareOf = (group: string, name: string) => {
      let keys: Array<string> = []
      HttpApi.reflect(Api, {
        onGroup: () => {},
        onEndpoint: ({ endpoint, group: g, middleware }) => {
          if (g.identifier === group && endpoint.identifier === name) keys = [...middleware].map((service) => service.key)
        }
      })
      return keys
    }
    assert.deepStrictEqual(middlewareOf("v1", "getCurrentWorkspace"), [V1Gate.key])
    assert.deepStrictEqual(middlewareOf("mobileWorkspace", "getUsage"), [MobileGate.key])
    assert.deepStrictEqual(middlewareOf("mobileWebhooks", "listWebhookEndpoints"), [MobileGate.key])
  })
})
