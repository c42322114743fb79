import { Entitlements, Feature } from "@atrium/domain"
import { systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AppUnderTest, seedKey, send } from "./harness.ts"

describe("/api/v1", () => {
  it.effect("GET /workspaces/current answers the key's workspace with an ISO createdAt", () =>
    Effect.gen(function*() {
      const { key, workspace } = yield* seedKey()
      const reply = yield* send("GET", "/api/v1/workspaces/current", { key })
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual(Object.keys(reply.body).sort(), ["createdAt", "id", "name", "personal", "slug"])
      assert.strictEqual(reply.body.id, workspace.id)
      assert.strictEqual(reply.body.slug, workspace.slug)
      assert.strictEqual(reply.body.personal, false)
      assert.match(String(reply.body.createdAt), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a workspace id in the query or headers changes nothing", () =>
    Effect.gen(function*() {
      const mine = yield* seedKey({ name: "Mine" })
      const other = yield* seedKey({ name: "Other" })
      for (const options of [
        { path: `/api/v1/workspaces/current?workspaceId=${other.workspace.id}`, headers: {} },
        { path: "/api/v1/workspaces/current", headers: { "x-workspace-id": other.workspace.id, "workspace-id": other.workspace.id } }
      ]) {
        const reply = yield* send("GET", options.path, { key: mine.key, headers: options.headers })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.body.id, mine.workspace.id)
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("GET /entitlements lists the workspace's grants in force", () =>
    Effect.gen(function*() {
      const { key, workspace } = yield* seedKey()
      const other = yield* seedKey({ name: "Other" })
      const grant = (workspaceId: typeof workspace.id, feature: string) =>
        Entitlements.use((service) =>
          service.grant(systemPrincipal(workspaceId), { feature: Feature.make(feature), source: "plan" }))
      yield* grant(workspace.id, "ai.basic")
      yield* grant(other.workspace.id, "ai.advanced")
      const reply = yield* send("GET", "/api/v1/entitlements", { key })
      assert.strictEqual(reply.status, 200)
      const data = reply.body.data
      assert.isTrue(Array.isArray(data))
      assert.deepStrictEqual(data, [{
        feature: "ai.basic",
        source: "plan",
        grantedAt: Array.isArray(data) ? data[0].grantedAt : "",
        expiresAt: null,
        purchaseId: null
      }])
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("GET /models/requirements lists the catalog", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const reply = yield* send("GET", "/api/v1/models/requirements", { key })
      assert.strictEqual(reply.status, 200)
      const data = reply.body.data
      assert.isTrue(Array.isArray(data) && data.length > 0)
      const first = Array.isArray(data) ? data[0] : undefined
      assert.strictEqual(first.model, "atrium-local-1")
      for (const field of ["provider", "requiredFeature", "inputPriceMicrosPerMTok", "outputPriceMicrosPerMTok", "maxInputTokens", "maxOutputTokens", "description"]) {
        assert.property(first, field)
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("over the per-key limit answers 429 rate_limited with Retry-After and RateLimit headers", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const other = yield* seedKey({ name: "Other" })
      for (let i = 0; i < 3; i++) {
        const ok = yield* send("GET", "/api/v1/workspaces/current", { key })
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(ok.headers["ratelimit-policy"], "3;w=60")
        assert.match(ok.headers["ratelimit"] ?? "", new RegExp(`^limit=3, remaining=${2 - i}, reset=\\d+$`))
      }
      const limited = yield* send("GET", "/api/v1/workspaces/current", { key })
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.body.code, "rate_limited")
      assert.strictEqual(limited.headers["content-type"], "application/problem+json")
      assert.match(limited.headers["retry-after"] ?? "", /^\d+$/)
      assert.isAbove(Number(limited.headers["retry-after"]), 0)
      assert.match(limited.headers["ratelimit"] ?? "", /^limit=3, remaining=0, reset=\d+$/)
      // The limit is per key.
      assert.strictEqual((yield* send("GET", "/api/v1/workspaces/current", { key: other.key })).status, 200)
    }).pipe(Effect.provide(AppUnderTest({ rateLimit: { limit: 3, window: "1 minute" } }))))

  it.effect("GET /api/v1/openapi is an OpenAPI 3.1 document with the paths, bearer scheme and error codes", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/api/v1/openapi")
      assert.strictEqual(reply.status, 200)
      assert.match(String(reply.body.openapi), /^3\.1\.\d+$/)
      const text = reply.text
      const paths: Record<string, ReadonlyArray<string>> = {
        "/api/v1/workspaces/current": ["get"],
        "/api/v1/entitlements": ["get"],
        "/api/v1/models/requirements": ["get"],
        "/api/v1/usage": ["get"],
        "/api/v1/ai-tasks": ["post"],
        "/api/v1/ai-tasks/{id}": ["get"],
        "/api/v1/webhook-endpoints": ["get", "post"],
        "/api/v1/webhook-endpoints/{id}": ["delete", "get", "patch"],
        "/api/v1/webhook-endpoints/{id}/rotate-secret": ["post"],
        "/api/v1/webhook-endpoints/{id}/test": ["post"],
        "/api/v1/webhook-endpoints/{id}/recover": ["post"],
        "/api/v1/webhook-endpoints/{id}/deliveries": ["get"],
        "/api/v1/webhook-deliveries/{id}": ["get"],
        "/api/v1/webhook-deliveries/{id}/replay": ["post"],
        "/api/v1/events": ["get"],
        "/api/v1/event-types": ["get"]
      }
      for (const [path, methods] of Object.entries(paths)) {
        assert.deepStrictEqual(Object.keys(Object(Object(reply.body.paths)[path])).sort(), methods, path)
      }
      const spec = JSON.parse(text)
      // Lower-case `bearer`, as Scalar and generators expect, so samples send `Authorization: Bearer …`.
      assert.deepInclude(spec.components.securitySchemes.bearer, { type: "http", scheme: "bearer" })
      assert.deepStrictEqual(spec.paths["/api/v1/workspaces/current"].get.security, [{ bearer: [] }])
      assert.strictEqual(spec.info.title, "Atrium API v1")
      assert.match(spec.info.version, /^1\.\d+\.\d+$/)
      const responses = spec.paths["/api/v1/workspaces/current"].get.responses
      for (const status of ["400", "401", "403", "404", "429", "500", "503"]) {
        assert.property(responses, status)
        assert.property(responses[status].content, "application/problem+json")
      }
      for (const code of ["invalid_request", "missing_credentials", "malformed_credentials", "invalid_api_key", "api_key_revoked", "api_key_expired", "insufficient_scope", "not_found", "rate_limited", "internal_error", "unavailable", "conflict", "not_entitled", "usage_cap_reached", "insufficient_credits", "idempotency_key_reused"]) {
        assert.include(text, `"${code}"`)
      }
      // Domain failures are documented on the operations that answer them.
      const submit = spec.paths["/api/v1/ai-tasks"].post
      for (const status of ["202", "400", "402", "403", "409"]) assert.property(submit.responses, status)
      assert.property(submit.responses["202"].headers, "idempotent-replayed")
      const idempotencyKey = submit.parameters.find((parameter: { readonly name: string }) => parameter.name === "idempotency-key")
      assert.deepInclude(idempotencyKey, { in: "header", required: false })
      assert.property(spec.paths["/api/v1/webhook-endpoints"].post.responses, "201")
      assert.property(spec.paths["/api/v1/webhook-endpoints"].post.responses, "409")
      assert.property(spec.paths["/api/v1/webhook-endpoints/{id}"].delete.responses, "204")
      assert.property(spec.paths["/api/v1/webhook-endpoints/{id}/test"].post.responses, "202")
      // The webhook schemas are named components, so another interface can expose the very same ones.
      for (const name of ["WebhookEndpoint", "WebhookEndpointWithSecret", "CreateWebhookEndpoint", "UpdateWebhookEndpoint", "WebhookDelivery", "WebhookDeliveryWithAttempts", "Event", "EventTypeList", "AiTask", "AiTaskRequest", "Usage"]) {
        assert.property(spec.components.schemas, name)
      }
      assert.strictEqual(spec.components.schemas.CreateWebhookEndpoint.additionalProperties, false)
      assert.notProperty(spec.components.schemas.WebhookEndpoint.properties, "secret")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("GET /api/docs is an offline HTML reference naming no CDN", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/api/docs")
      assert.strictEqual(reply.status, 200)
      assert.include(reply.headers["content-type"] ?? "", "text/html")
      assert.include(reply.text, "Atrium API")
      assert.include(reply.text, "createApiReference")
      assert.include(reply.text, "/api/v1/openapi")
      assert.include(reply.text, "/api/mobile/openapi")
      for (const host of ["https://cdn", "unpkg", "jsdelivr"]) assert.notInclude(reply.text, host)
      // Every script comes from this server.
      for (const [, source] of reply.text.matchAll(/<script[^>]+src="([^"]+)"/g)) assert.match(String(source), /^\/api\/docs\/assets\//)
    }).pipe(Effect.provide(AppUnderTest())))
})
