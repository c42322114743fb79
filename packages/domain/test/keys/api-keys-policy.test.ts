import { assert, describe, it } from "@effect/vitest"
import { ApiKeyId, ApiKeyPrincipal, ApiKeys, type Acting, SessionId, SessionPrincipal, UserId, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { Effect, Ref } from "effect"

// The domain asks `api_keys.manage` itself: an embedder calling ApiKeys with a principal that lacks it is refused by the
// service, with no HTTP layer in front, and nothing is written.
const setup = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
  const existing = yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "existing" })
  const member = new SessionPrincipal({ sessionId: SessionId.make("ses_m"), userId: UserId.make("usr_m"), workspaceId: workspace.id, role: "member" })
  const key = new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_w"), workspaceId: workspace.id, scopes: ["write"] })
  return { workspaceId: workspace.id, existing: existing.apiKey.id, lacking: [member, key] }
})

// Every method of ApiKeys that manages keys, as a caller would call it.
const methods = (keys: typeof ApiKeys.Service, existing: ApiKeyId) => [
  ["create", (principal: Acting) => Effect.asVoid(keys.create(principal, { name: "new" }))],
  ["roll", (principal: Acting) => Effect.asVoid(keys.roll(principal, { id: existing }))],
  ["revoke", (principal: Acting) => Effect.asVoid(keys.revoke(principal, existing))],
  ["list", (principal: Acting) => Effect.asVoid(keys.list(principal, { limit: 10, cursor: undefined }))]
] as const

describe("ApiKeys enforces api_keys.manage itself", () => {
  it.effect("refuses a member and an API key (even with `write`) on every method, and writes nothing", () =>
    Effect.gen(function*() {
      const { existing, lacking } = yield* setup
      const { state } = yield* MemoryStore
      const before = (yield* Ref.get(state)).apiKeys.size
      for (const [name, call] of methods(yield* ApiKeys, existing)) {
        for (const principal of lacking) {
          const refused = yield* call(principal).pipe(Effect.flip)
          assert.strictEqual(refused._tag, "Forbidden", `${name} as ${principal._tag}`)
        }
      }
      assert.strictEqual((yield* Ref.get(state)).apiKeys.size, before)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("lets an admin, an owner and the system manage keys in their own workspace", () =>
    Effect.gen(function*() {
      const { workspaceId, existing } = yield* setup
      const keys = yield* ApiKeys
      const admin = new SessionPrincipal({ sessionId: SessionId.make("ses_a"), userId: UserId.make("usr_a"), workspaceId, role: "admin" })
      const created = yield* keys.create(admin, { name: "by admin" })
      assert.strictEqual(created.apiKey.workspaceId, workspaceId)
      assert.strictEqual((yield* keys.list(systemPrincipal(workspaceId), { limit: 10, cursor: undefined })).data.length, 2)
      const rolled = yield* keys.roll(admin, { id: existing })
      yield* keys.revoke(systemPrincipal(workspaceId), rolled.apiKey.id)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
