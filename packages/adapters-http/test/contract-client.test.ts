import { ApiKeyRejected, InsufficientScope, NotFound, TaskId, Unavailable } from "@atrium/domain"
import { MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
// The contract alone, as a client package would import it: no server code comes with it.
import { Api } from "@atrium/client"
import { AppUnderTest, seedKey } from "./harness.ts"

// A typed client of the contract over the real server, authenticating with `key`.
const clientWith = (key: string) =>
  HttpApiClient.make(Api, {
    transformClient: (client) => HttpClient.mapRequest(client, HttpClientRequest.bearerToken(key))
  })

describe("typed HttpApiClient of @atrium/client", () => {
  it.effect("decodes successes, and failures back into the domain's own errors", () =>
    Effect.gen(function*() {
      const { key, workspace } = yield* seedKey()
      const client = yield* clientWith(key)
      const current = yield* client.v1.getCurrentWorkspace()
      assert.strictEqual(current.id, workspace.id)
      // A read-only key: the domain's InsufficientScope, as the problem body carried it.
      const refused = yield* client.webhooks.createWebhookEndpoint({ payload: { url: "https://hooks.example.com/a" } }).pipe(Effect.flip)
      assert.instanceOf(refused, InsufficientScope)
      if (refused instanceof InsufficientScope) assert.strictEqual(refused.requiredScope, "webhooks:write")
      const missing = yield* client.aiTasks.getAiTask({ params: { id: TaskId.make("task_doesnotexist") } }).pipe(Effect.flip)
      assert.instanceOf(missing, NotFound)
      const anonymous = yield* clientWith("not-a-key")
      const unauthenticated = yield* anonymous.v1.getCurrentWorkspace().pipe(Effect.flip)
      assert.instanceOf(unauthenticated, ApiKeyRejected)
      if (unauthenticated instanceof ApiKeyRejected) assert.strictEqual(unauthenticated.code, "malformed_credentials")
      yield* Ref.set((yield* MemoryStore).down, true)
      assert.instanceOf(yield* client.v1.getUsage().pipe(Effect.flip), Unavailable)
    }).pipe(Effect.provide(AppUnderTest())))
})
