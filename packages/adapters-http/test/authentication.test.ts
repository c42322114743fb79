import { ApiKeys } from "@atrium/domain"
import { MemoryStore, systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Ref } from "effect"
import { TestClock } from "effect/testing"
import { AppUnderTest, type Reply, seedKey, send } from "./harness.ts"

const path = "/api/v1/workspaces/current"

const assertRefused = (reply: Reply, code: string) => {
  assert.strictEqual(reply.status, 401)
  assert.strictEqual(reply.body.code, code)
  assert.strictEqual(reply.headers["content-type"], "application/problem+json")
  assert.strictEqual(
    reply.headers["www-authenticate"],
    code === "missing_credentials" ? `Bearer realm="atrium"` : `Bearer realm="atrium", error="invalid_token"`
  )
}

// Same shape and a valid-looking body, but the last character breaks the checksum.
const breakChecksum = (key: string) => key.slice(0, -1) + (key.endsWith("A") ? "B" : "A")

describe("authentication", () => {
  it.effect("a valid key reaches the handler", () =>
    Effect.gen(function*() {
      const { key, workspace } = yield* seedKey()
      const reply = yield* send("GET", path, { key })
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(reply.body.id, workspace.id)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("no Authorization header is missing_credentials, with a challenge lacking an error", () =>
    Effect.gen(function*() {
      assertRefused(yield* send("GET", path), "missing_credentials")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a non-Bearer scheme is malformed_credentials, not missing", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      assertRefused(yield* send("GET", path, { headers: { authorization: "Basic dXNlcjpwYXNz" } }), "malformed_credentials")
      assertRefused(yield* send("GET", path, { headers: { authorization: key } }), "malformed_credentials")
      assertRefused(yield* send("GET", path, { headers: { authorization: "Bearer " } }), "malformed_credentials")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("the Bearer scheme is case-insensitive (RFC 9110)", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const reply = yield* send("GET", path, { headers: { authorization: `bearer ${key}` } })
      assert.strictEqual(reply.status, 200)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("garbage and wrong-checksum keys are malformed_credentials", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      assertRefused(yield* send("GET", path, { key: "not-a-key" }), "malformed_credentials")
      assertRefused(yield* send("GET", path, { key: breakChecksum(key) }), "malformed_credentials")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a well-formed key that is not stored is invalid_api_key", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      // Forget every stored key: the presented one still has a valid checksum.
      const store = yield* MemoryStore
      yield* Ref.update(store.state, (state) => ({ ...state, apiKeys: new Map() }))
      assertRefused(yield* send("GET", path, { key }), "invalid_api_key")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a revoked key is api_key_revoked", () =>
    Effect.gen(function*() {
      const { key, apiKey, workspace } = yield* seedKey()
      yield* (yield* ApiKeys).revoke(systemPrincipal(workspace.id), apiKey.id)
      assertRefused(yield* send("GET", path, { key }), "api_key_revoked")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("an expired key is api_key_expired", () =>
    Effect.gen(function*() {
      const expiresAt = DateTime.add(yield* DateTime.now, { minutes: 10 })
      const { key } = yield* seedKey({ expiresAt })
      assert.strictEqual((yield* send("GET", path, { key })).status, 200)
      yield* TestClock.adjust("11 minutes")
      assertRefused(yield* send("GET", path, { key }), "api_key_expired")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a key in the query string is refused with 400 before any lookup", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      // Even with a valid header, and even when the database is down: no lookup happens.
      yield* Ref.set((yield* MemoryStore).down, true)
      for (const query of [`?q=${key}`, "?access_token=whatever", "?api_key=whatever", `?note=x%20${key}`]) {
        const reply = yield* send("GET", path + query, { key })
        assert.strictEqual(reply.status, 400, query)
        assert.strictEqual(reply.body.code, "invalid_request")
        assert.strictEqual(reply.headers["content-type"], "application/problem+json")
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a database outage during authentication is 503 unavailable, never 401", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      yield* Ref.set((yield* MemoryStore).down, true)
      const reply = yield* send("GET", path, { key })
      assert.strictEqual(reply.status, 503)
      assert.strictEqual(reply.body.code, "unavailable")
      assert.isDefined(reply.headers["retry-after"])
      assert.isUndefined(reply.headers["www-authenticate"])
    }).pipe(Effect.provide(AppUnderTest())))
})
