import { assert, describe, it } from "@effect/vitest"
import { ApiKeys, ApiKeyRepository, DomainEvent, parseApiKey, WorkspaceId, Workspaces } from "@atrium/domain"
import { Domain, MemoryStore, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Option, Redacted, Ref } from "effect"
import { TestClock } from "effect/testing"

const seed = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
  const created = yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "ci" })
  return { workspace, ...created }
})

describe("ApiKeys", () => {
  it.effect("mints a well-formed key, stores only its digest, and authenticates it", () =>
    Effect.gen(function*() {
      const { workspace, apiKey, plaintext } = yield* seed
      const text = Redacted.value(plaintext)
      assert.match(text, /^sk_live_[0-9A-Za-z]{39}$/)
      assert.isTrue(Option.isSome(parseApiKey(plaintext)))
      assert.notInclude(JSON.stringify(apiKey), text)
      assert.notStrictEqual(apiKey.digest, text)
      assert.strictEqual(apiKey.displayPrefix, text.slice(0, 16))
      const principal = yield* (yield* ApiKeys).authenticate(plaintext)
      assert.strictEqual(principal.workspaceId, workspace.id)
      assert.deepStrictEqual(principal.scopes, ["read"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("refuses missing, malformed, wrong-checksum and unknown keys with distinct codes", () =>
    Effect.gen(function*() {
      const { plaintext } = yield* seed
      const keys = yield* ApiKeys
      const code = (text: string) => keys.authenticate(Redacted.make(text)).pipe(Effect.flip, Effect.map((e) => e.code))
      assert.strictEqual(yield* code(""), "missing_credentials")
      assert.strictEqual(yield* code("hello"), "malformed_credentials")
      const text = Redacted.value(plaintext)
      const flipped = text.slice(0, 20) + (text[20] === "A" ? "B" : "A") + text.slice(21)
      assert.strictEqual(yield* code(flipped), "malformed_credentials")
      const other = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Other" }).pipe(
        Effect.flatMap((ws) => keys.create(systemPrincipal(ws.id), { name: "x" })),
        Effect.map((c) => Redacted.value(c.plaintext))
      )
      // A key minted elsewhere with a valid checksum but never stored here.
      const store = yield* MemoryStore
      yield* Ref.update(store.state, (s) => ({ ...s, apiKeys: new Map([...s.apiKeys].filter(([, k]) => !other.startsWith(k.displayPrefix))) }))
      assert.strictEqual(yield* code(other), "invalid_api_key")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("revocation takes effect on the next request and records audit + event in the same change", () =>
    Effect.gen(function*() {
      const { workspace, apiKey, plaintext } = yield* seed
      const keys = yield* ApiKeys
      yield* keys.authenticate(plaintext)
      yield* keys.revoke(systemPrincipal(workspace.id), apiKey.id)
      const error = yield* keys.authenticate(plaintext).pipe(Effect.flip)
      assert.strictEqual(error.code, "api_key_revoked")
      const state = yield* Ref.get((yield* MemoryStore).state)
      assert.deepStrictEqual(state.events.map((e: DomainEvent) => e.type), ["api_key.created", "api_key.revoked"])
      assert.deepStrictEqual(state.audit.map((e) => e.action), ["workspace.created", "api_key.created", "api_key.revoked"])
      assert.notInclude(JSON.stringify(state.events), apiKey.digest)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("another workspace's key is not found, and revoking it changes nothing", () =>
    Effect.gen(function*() {
      const { apiKey, plaintext } = yield* seed
      const error = yield* (yield* ApiKeys).revoke(systemPrincipal(WorkspaceId.make("ws_someoneelse")), apiKey.id).pipe(Effect.flip)
      assert.strictEqual(error._tag, "NotFound")
      yield* (yield* ApiKeys).authenticate(plaintext)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("an expired key is refused once its expiry passes", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const expiresAt = DateTime.add(yield* DateTime.now, { minutes: 10 })
      const { plaintext } = yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "t", expiresAt })
      yield* (yield* ApiKeys).authenticate(plaintext)
      yield* TestClock.adjust("11 minutes")
      const error = yield* (yield* ApiKeys).authenticate(plaintext).pipe(Effect.flip)
      assert.strictEqual(error.code, "api_key_expired")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a database failure is Unavailable, never a rejection", () =>
    Effect.gen(function*() {
      const { plaintext } = yield* seed
      yield* Ref.set((yield* MemoryStore).down, true)
      const error = yield* (yield* ApiKeys).authenticate(plaintext).pipe(Effect.flip)
      assert.strictEqual(error._tag, "Unavailable")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("last-used time is written at most once a minute", () =>
    Effect.gen(function*() {
      const { workspace, apiKey, plaintext } = yield* seed
      const keys = yield* ApiKeys
      const repo = yield* ApiKeyRepository
      const lastUsed = repo.findById(workspace.id, apiKey.id).pipe(Effect.map((k) => Option.flatMap(k, (key) => key.lastUsedAt)))
      yield* keys.authenticate(plaintext)
      yield* Effect.yieldNow
      const first = yield* lastUsed
      assert.isTrue(Option.isSome(first))
      yield* TestClock.adjust("30 seconds")
      yield* keys.authenticate(plaintext)
      yield* Effect.yieldNow
      assert.deepStrictEqual(yield* lastUsed, first)
      yield* TestClock.adjust("31 seconds")
      yield* keys.authenticate(plaintext)
      yield* Effect.yieldNow
      assert.notDeepEqual(yield* lastUsed, first)
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("ApiKeys: expiry at creation", () => {
  it.effect("refuses a key that is already expired, expires now, or expires at an absurd date; nothing is stored", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const keys = yield* ApiKeys
      const now = yield* DateTime.now
      const absurd = [
        DateTime.add(now, { days: -1 }),
        now,
        DateTime.makeUnsafe(-8.64e15), // year −271821, the earliest instant JavaScript knows
        DateTime.makeUnsafe(8.64e15), // year 275760
        DateTime.add(now, { days: 3651 })
      ]
      for (const expiresAt of absurd) {
        const error = yield* keys.create(systemPrincipal(workspace.id), { name: "ci", expiresAt }).pipe(Effect.flip)
        assert.strictEqual(error._tag, "InvalidInput")
      }
      assert.strictEqual((yield* Ref.get((yield* MemoryStore).state)).apiKeys.size, 0)
      const fine = yield* keys.create(systemPrincipal(workspace.id), { name: "ci", expiresAt: DateTime.add(now, { days: 30 }) })
      assert.deepStrictEqual(fine.apiKey.expiresAt, Option.some(DateTime.add(now, { days: 30 })))
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("ApiKeys: roll with grace", () => {
  const stateNow = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))

  it.effect("a new key with the same name and scopes; the old one works for the grace (default 24 h), then api_key_expired", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const keys = yield* ApiKeys
      const old = yield* keys.create(systemPrincipal(workspace.id), { name: "deploy", scopes: ["read", "webhooks:write"], environment: "test" })
      const rolled = yield* keys.roll(systemPrincipal(workspace.id), { id: old.apiKey.id })
      assert.notStrictEqual(rolled.apiKey.id, old.apiKey.id)
      assert.notStrictEqual(Redacted.value(rolled.plaintext), Redacted.value(old.plaintext))
      assert.deepStrictEqual([rolled.apiKey.name, rolled.apiKey.scopes, rolled.apiKey.environment], ["deploy", ["read", "webhooks:write"], "test"])
      const now = yield* DateTime.now
      assert.deepStrictEqual(rolled.previous.expiresAt, Option.some(DateTime.add(now, { hours: 24 })))
      assert.deepStrictEqual(rolled.previous.replacedBy, Option.some(rolled.apiKey.id))
      // Both keys work during the grace, and each records its own use: the list shows which one is still called.
      yield* TestClock.adjust("23 hours")
      assert.strictEqual((yield* keys.authenticate(old.plaintext)).keyId, old.apiKey.id)
      assert.strictEqual((yield* keys.authenticate(rolled.plaintext)).keyId, rolled.apiKey.id)
      yield* TestClock.adjust("1 second")
      const listed = yield* keys.list(systemPrincipal(workspace.id), { limit: 10, cursor: undefined })
      const lastUsed = new Map(listed.data.map((key) => [key.id, key.lastUsedAt]))
      assert.isTrue(Option.isSome(lastUsed.get(old.apiKey.id) ?? Option.none()))
      assert.isTrue(Option.isSome(lastUsed.get(rolled.apiKey.id) ?? Option.none()))
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* keys.authenticate(old.plaintext).pipe(Effect.flip)).code, "api_key_expired")
      yield* keys.authenticate(rolled.plaintext)
      // One audit entry and one api_key.rolled event, carrying views only (no secret, no digest).
      const s = yield* stateNow
      assert.deepStrictEqual(s.audit.filter((e) => e.action === "api_key.rolled").map((e) => e.target), [old.apiKey.id])
      const events = s.events.filter((e) => e.type === "api_key.rolled")
      assert.strictEqual(events.length, 1)
      const payload = JSON.stringify(events[0]?.data)
      assert.include(payload, rolled.apiKey.id)
      assert.notInclude(payload, Redacted.value(rolled.plaintext))
      assert.notInclude(payload, rolled.apiKey.digest)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("the grace is 0 s to 7 days and never lengthens an earlier expiry; revoked, rolled or unknown keys are refused", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const other = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Other" })
      const keys = yield* ApiKeys
      const now = yield* DateTime.now
      const key = yield* keys.create(systemPrincipal(workspace.id), { name: "ci", expiresAt: DateTime.add(now, { hours: 1 }) })
      for (const graceSeconds of [-1, 7 * 86400 + 1, 1.5]) {
        const error = yield* keys.roll(systemPrincipal(workspace.id), { id: key.apiKey.id, graceSeconds }).pipe(Effect.flip)
        assert.strictEqual(error._tag, "InvalidInput")
      }
      assert.strictEqual((yield* keys.roll(systemPrincipal(other.id), { id: key.apiKey.id }).pipe(Effect.flip))._tag, "NotFound")
      const rolled = yield* keys.roll(systemPrincipal(workspace.id), { id: key.apiKey.id, graceSeconds: 7 * 86400 })
      assert.deepStrictEqual(rolled.previous.expiresAt, Option.some(DateTime.add(now, { hours: 1 })))
      assert.deepStrictEqual(rolled.apiKey.expiresAt, Option.some(DateTime.add(now, { hours: 1 })))
      assert.strictEqual((yield* keys.roll(systemPrincipal(workspace.id), { id: key.apiKey.id }).pipe(Effect.flip))._tag, "Conflict")
      yield* keys.revoke(systemPrincipal(workspace.id), rolled.apiKey.id)
      assert.strictEqual((yield* keys.roll(systemPrincipal(workspace.id), { id: rolled.apiKey.id }).pipe(Effect.flip))._tag, "Conflict")
      // A grace of 0 ends the old key at once.
      const fresh = yield* keys.create(systemPrincipal(workspace.id), { name: "now" })
      const instant = yield* keys.roll(systemPrincipal(workspace.id), { id: fresh.apiKey.id, graceSeconds: 0 })
      assert.strictEqual((yield* keys.authenticate(fresh.plaintext).pipe(Effect.flip)).code, "api_key_expired")
      yield* keys.authenticate(instant.plaintext)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
