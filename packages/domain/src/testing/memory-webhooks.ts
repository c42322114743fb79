import { DateTime, Effect, Layer, Option, Ref } from "effect"
import { DeliveryRepository } from "../webhooks/index.ts"
import { WebhookEndpointRepository } from "../webhooks/index.ts"
import { type AttemptRecord, WebhookDelivery, WebhookEndpoint } from "../webhooks/index.ts"
import { EndpointSecret } from "../webhooks/index.ts"
import { ensureUp, MemoryStore, type MemoryState, pageOf, withEntry, useStore } from "./memory-store.ts"

const millis = DateTime.toEpochMillis


// When a batch ends an endpoint's failing streak: the latest of its deliveries' updates.
const latestUpdate = (records: ReadonlyArray<AttemptRecord>, endpointId: string) =>
  records.filter((r) => r.delivery.endpointId === endpointId).map((r) => r.delivery.updatedAt).reduce((a, b) => DateTime.max(a, b))

/** In-memory webhook endpoints and secrets. */
export const WebhookEndpointRepositoryMemory = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function*() {
    const { read, write } = yield* useStore
    const inWorkspace = (s: MemoryState, workspaceId: string) => Array.from(s.endpoints.values()).filter((e) => e.workspaceId === workspaceId)
    return WebhookEndpointRepository.of({
      insert: (endpoint) => write((s) => ({ ...s, endpoints: withEntry(s.endpoints, endpoint.id, endpoint) })),
      update: (endpoint) => write((s) => ({ ...s, endpoints: withEntry(s.endpoints, endpoint.id, endpoint) })),
      delete: (workspaceId, id) =>
        read.pipe(Effect.flatMap((s) => {
          const found = s.endpoints.get(id)
          if (found === undefined || found.workspaceId !== workspaceId) return Effect.succeed(false)
          const endpoints = new Map(s.endpoints)
          endpoints.delete(id)
          return write((state) => ({
            ...state,
            endpoints,
            secrets: state.secrets.filter((secret) => secret.endpointId !== id),
            deliveries: new Map(Array.from(state.deliveries).filter(([, d]) => d.endpointId !== id)),
            // Attempts go with their deliveries (a cascade in Postgres).
            attempts: state.attempts.filter((a) => state.deliveries.get(a.deliveryId)?.endpointId !== id)
          })).pipe(Effect.as(true))
        })),
      findById: (workspaceId, id) => read.pipe(Effect.map((s) => Option.fromNullishOr(inWorkspace(s, workspaceId).find((e) => e.id === id)))),
      list: (workspaceId, page) => read.pipe(Effect.map((s) => pageOf(inWorkspace(s, workspaceId), page))),
      count: (workspaceId) => read.pipe(Effect.map((s) => inWorkspace(s, workspaceId).length)),
      listSubscribed: (workspaceId, type) => read.pipe(Effect.map((s) => inWorkspace(s, workspaceId).filter((e) => e.wants(type)))),
      addSecret: (secret) => write((s) => ({ ...s, secrets: [secret, ...s.secrets] })),
      secrets: (id) => read.pipe(Effect.map((s) => s.secrets.filter((secret) => secret.endpointId === id))),
      expireSecrets: (id, at) =>
        write((s) => ({
          ...s,
          secrets: s.secrets.map((secret) =>
            secret.endpointId === id && (Option.isNone(secret.expiresAt) || DateTime.isGreaterThan(secret.expiresAt.value, at))
              ? new EndpointSecret({ ...secret, expiresAt: Option.some(at) })
              : secret
          )
        }))
    })
  })
)

/** In-memory deliveries and attempts, with the same lease semantics as the Postgres queue. */
export const DeliveryRepositoryMemory = Layer.effect(
  DeliveryRepository,
  Effect.gen(function*() {
    const { read, write } = yield* useStore
    const store = yield* MemoryStore
    return DeliveryRepository.of({
      insertMany: (deliveries) =>
        write((s) => ({ ...s, deliveries: deliveries.reduce((map, d) => withEntry(map, d.id, d), s.deliveries) })),
      findById: (workspaceId, id) =>
        read.pipe(Effect.map((s) => Option.fromNullishOr(s.deliveries.get(id)).pipe(Option.filter((d) => d.workspaceId === workspaceId)))),
      listByEndpoint: (workspaceId, endpointId, status, page) =>
        read.pipe(Effect.map((s) =>
          pageOf(
            Array.from(s.deliveries.values()).filter((d) =>
              d.workspaceId === workspaceId && d.endpointId === endpointId && (status === undefined || d.status === status)
            ),
            page
          )
        )),
      attempts: (id) => read.pipe(Effect.map((s) => s.attempts.filter((a) => a.deliveryId === id).sort((a, b) => a.number - b.number))),
      claimDue: (now, limit, leaseUntil) =>
        ensureUp.pipe(
          Effect.provideService(MemoryStore, store),
          Effect.andThen(Ref.modify(store.state, (s) => {
            const due = Array.from(s.deliveries.values())
              .filter((d) => d.status === "pending" && Option.isSome(d.nextAttemptAt) && !DateTime.isGreaterThan(d.nextAttemptAt.value, now))
              .filter((d) => s.endpoints.get(d.endpointId)?.enabled === true)
              .sort((a, b) =>
                millis(Option.getOrElse(a.nextAttemptAt, () => now)) - millis(Option.getOrElse(b.nextAttemptAt, () => now)) || (a.id < b.id ? -1 : 1)
              )
              .slice(0, limit)
            const leased = due.map((d) => new WebhookDelivery({ ...d, nextAttemptAt: Option.some(leaseUntil) }))
            const claimed = due.flatMap((d) => {
              const event = s.events.find((e) => e.id === d.eventId)
              const endpoint = s.endpoints.get(d.endpointId)
              if (event === undefined || endpoint === undefined) return []
              return [{ delivery: d, event, endpoint, secrets: s.secrets.filter((secret) => secret.endpointId === d.endpointId) }]
            })
            return [claimed, { ...s, deliveries: leased.reduce((map, d) => withEntry(map, d.id, d), s.deliveries) }]
          }))
        ),
      recordAttempt: (attempt, delivery) =>
        write((s) => ({ ...s, attempts: [...s.attempts, attempt], deliveries: withEntry(s.deliveries, delivery.id, delivery) })),
      recordAttempts: (records) =>
        write((s) => {
          const known = new Set(s.attempts.map((a) => a.id))
          // As in Postgres: a delivery moves only from the state its attempt was judged on.
          const moved = records.filter((r) => s.deliveries.get(r.delivery.id)?.attemptCount === r.delivery.attemptCount - 1)
          const touched = new Set<string>(moved.map((r) => r.delivery.endpointId))
          const delivered = new Set<string>(moved.filter((r) => r.delivery.status === "succeeded").map((r) => r.delivery.endpointId))
          const firstFailure = (endpointId: string) =>
            moved.filter((r) => r.delivery.endpointId === endpointId).map((r) => r.attempt.startedAt).reduce((a, b) => DateTime.min(a, b))
          return {
            ...s,
            attempts: [...s.attempts, ...records.filter((r) => !known.has(r.attempt.id)).map((r) => r.attempt)],
            deliveries: moved.reduce((map, r) => withEntry(map, r.delivery.id, r.delivery), s.deliveries),
            endpoints: new Map(Array.from(s.endpoints, ([id, endpoint]) => [
              id,
              !touched.has(id)
                ? endpoint
                : delivered.has(id)
                ? Option.isSome(endpoint.failingSince)
                  ? new WebhookEndpoint({ ...endpoint, failingSince: Option.none(), updatedAt: latestUpdate(moved, id) })
                  : endpoint
                : Option.isNone(endpoint.failingSince)
                ? new WebhookEndpoint({ ...endpoint, failingSince: Option.some(firstFailure(id)), updatedAt: latestUpdate(moved, id) })
                : endpoint
            ]))
          }
        }),
      failedSince: (workspaceId, endpointId, since) =>
        read.pipe(Effect.map((s) =>
          Array.from(s.deliveries.values()).filter((d) =>
            d.workspaceId === workspaceId && d.endpointId === endpointId && d.status === "failed" && !DateTime.isLessThan(d.createdAt, since)
          )
        )),
      failPending: (endpointId, at) =>
        write((s) => ({
          ...s,
          deliveries: new Map(Array.from(s.deliveries).map(([id, d]) => [
            id,
            d.endpointId === endpointId && d.status === "pending"
              ? new WebhookDelivery({ ...d, status: "failed", nextAttemptAt: Option.none(), updatedAt: at })
              : d
          ]))
        }))
    })
  })
)
