import { DateTime, Effect, Layer, Option, Ref } from "effect"
import { ApiKey } from "../keys/index.ts"
import { Conflict } from "../shared/index.ts"
import { ApiKeyRepository } from "../keys/index.ts"
import { AuditLog } from "../audit/index.ts"
import { EntitlementRepository } from "../entitlements/index.ts"
import { EventOutbox } from "../audit/index.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"
import { ensureUp, MemoryStore, type MemoryState, pageOf, withEntry } from "./memory-store.ts"

/** In-memory workspaces. */
export const WorkspaceRepositoryMemory = Layer.effect(
  WorkspaceRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const up = ensureUp.pipe(Effect.provideService(MemoryStore, store))
    const all = up.pipe(Effect.andThen(Ref.get(store.state)), Effect.map((s) => Array.from(s.workspaces.values())))
    return WorkspaceRepository.of({
      insert: (workspace) =>
        all.pipe(
          Effect.flatMap((existing) =>
            existing.some((w) => w.slug === workspace.slug)
              ? Effect.fail(new Conflict({ detail: `The slug "${workspace.slug}" is taken` }))
              : Ref.update(store.state, (s) => ({ ...s, workspaces: withEntry(s.workspaces, workspace.id, workspace) }))
          )
        ),
      findById: (id) => all.pipe(Effect.map((ws) => Option.fromNullishOr(ws.find((w) => w.id === id)))),
      findBySlug: (slug) => all.pipe(Effect.map((ws) => Option.fromNullishOr(ws.find((w) => w.slug === slug)))),
      count: all.pipe(Effect.map((ws) => ws.length)),
      list: (page) => all.pipe(Effect.map((ws) => pageOf(ws, page)))
    })
  })
)

/** In-memory API keys. */
export const ApiKeyRepositoryMemory = Layer.effect(
  ApiKeyRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const up = ensureUp.pipe(Effect.provideService(MemoryStore, store))
    const keys = up.pipe(Effect.andThen(Ref.get(store.state)), Effect.map((s) => Array.from(s.apiKeys.values())))
    const save = (key: ApiKey) => Ref.update(store.state, (s) => ({ ...s, apiKeys: withEntry(s.apiKeys, key.id, key) }))
    return ApiKeyRepository.of({
      insert: (key) => up.pipe(Effect.andThen(save(key))),
      findByDigest: (digest) => keys.pipe(Effect.map((all) => Option.fromNullishOr(all.find((k) => k.digest === digest)))),
      findById: (workspaceId, id) =>
        keys.pipe(Effect.map((all) => Option.fromNullishOr(all.find((k) => k.id === id && k.workspaceId === workspaceId)))),
      list: (workspaceId, page) => keys.pipe(Effect.map((all) => pageOf(all.filter((k) => k.workspaceId === workspaceId), page))),
      revoke: (workspaceId, id, at) =>
        keys.pipe(
          Effect.map((all) => Option.fromNullishOr(all.find((k) => k.id === id && k.workspaceId === workspaceId))),
          Effect.flatMap(Option.match({
            onNone: () => Effect.succeedNone,
            onSome: (key) => {
              const revoked = Option.isSome(key.revokedAt) ? key : new ApiKey({ ...key, revokedAt: Option.some(at) })
              return save(revoked).pipe(Effect.as(Option.some(revoked)))
            }
          }))
        ),
      markRolled: (workspaceId, id, replacedBy, expiresAt, now) =>
        up.pipe(Effect.andThen(Ref.modify(store.state, (s): readonly [Option.Option<ApiKey>, MemoryState] => {
          const key = s.apiKeys.get(id)
          if (key === undefined || key.workspaceId !== workspaceId || !key.isActiveAt(now) || Option.isSome(key.replacedBy)) return [Option.none(), s]
          const rolled = new ApiKey({ ...key, replacedBy: Option.some(replacedBy), expiresAt: Option.some(expiresAt) })
          return [Option.some(rolled), { ...s, apiKeys: withEntry(s.apiKeys, id, rolled) }]
        }))),
      touchLastUsed: (id, at) =>
        up.pipe(
          Effect.andThen(Ref.update(store.state, (s) => {
            const key = s.apiKeys.get(id)
            // Never backwards: concurrent requests touch it out of order.
            if (key === undefined || (Option.isSome(key.lastUsedAt) && !DateTime.isGreaterThan(at, key.lastUsedAt.value))) return s
            return { ...s, apiKeys: withEntry(s.apiKeys, id, new ApiKey({ ...key, lastUsedAt: Option.some(at) })) }
          }))
        )
    })
  })
)

const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** In-memory entitlements, one per workspace, feature, source and source reference. */

export const EntitlementRepositoryMemory = Layer.effect(
  EntitlementRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const up = ensureUp.pipe(Effect.provideService(MemoryStore, store))
    return EntitlementRepository.of({
      upsert: (entitlement) =>
        up.pipe(Effect.andThen(Ref.update(store.state, (s) => ({
          ...s,
          entitlements: withEntry(s.entitlements, `${entitlement.workspaceId}/${entitlement.key}`, entitlement)
        })))),
      listByWorkspace: (workspaceId) =>
        up.pipe(
          Effect.andThen(Ref.get(store.state)),
          // The Postgres order: feature, source, then source reference (byte order, as `COLLATE "C"`).
          Effect.map((s) =>
            Array.from(s.entitlements.values())
              .filter((e) => e.workspaceId === workspaceId)
              .sort((a, b) => byBytes(a.feature, b.feature) || byBytes(a.source, b.source) || byBytes(a.sourceRef, b.sourceRef))
          )
        )
    })
  })
)

/** In-memory audit log. */
export const AuditLogMemory = Layer.effect(
  AuditLog,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const up = ensureUp.pipe(Effect.provideService(MemoryStore, store))
    return AuditLog.of({
      append: (entry) => up.pipe(Effect.andThen(Ref.update(store.state, (s) => ({ ...s, audit: [...s.audit, entry] })))),
      appendAll: (entries) => up.pipe(Effect.andThen(Ref.update(store.state, (s) => ({ ...s, audit: [...s.audit, ...entries] })))),
      list: (workspaceId, page) =>
        up.pipe(
          Effect.andThen(Ref.get(store.state)),
          Effect.map((s) => pageOf(s.audit.filter((e) => e.workspaceId === workspaceId), page))
        )
    })
  })
)

/** In-memory event outbox. */
export const EventOutboxMemory = Layer.effect(
  EventOutbox,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const up = ensureUp.pipe(Effect.provideService(MemoryStore, store))
    return EventOutbox.of({
      append: (event) => up.pipe(Effect.andThen(Ref.update(store.state, (s) => ({ ...s, events: [...s.events, event] })))),
      appendAll: (events) => up.pipe(Effect.andThen(Ref.update(store.state, (s) => ({ ...s, events: [...s.events, ...events] })))),
      list: (workspaceId, page) =>
        up.pipe(
          Effect.andThen(Ref.get(store.state)),
          Effect.map((s) => pageOf(s.events.filter((e) => e.workspaceId === workspaceId), page))
        ),
      findById: (workspaceId, id) =>
        up.pipe(
          Effect.andThen(Ref.get(store.state)),
          Effect.map((s) => Option.fromNullishOr(s.events.find((e) => e.workspaceId === workspaceId && e.id === id)))
        )
    })
  })
)
