import { DateTime, Effect, Layer, Option } from "effect"
import { NotificationInbox, PurchaseRepository, StoreNotification, type Purchase } from "../purchases/index.ts"
import { pageOf, useStore, withEntry } from "./memory-store.ts"

const isDue = (at: Option.Option<DateTime.Utc>, now: DateTime.Utc) => Option.isSome(at) && !DateTime.isGreaterThan(at.value, now)

/** In-memory purchases, account links and sync keys. */
export const PurchaseRepositoryMemory = Layer.effect(
  PurchaseRepository,
  Effect.gen(function*() {
    const { modify, read, write } = yield* useStore
    const byRef = (purchases: Iterable<Purchase>, store: string, storeRef: string) =>
      Array.from(purchases).find((p) => p.store === store && p.storeRef === storeRef)
    const newestFirst = (purchases: ReadonlyArray<Purchase>) =>
      [...purchases].sort((a, b) => DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || b.id.localeCompare(a.id))
    return PurchaseRepository.of({
      lockOrInsert: (candidate) =>
        modify((s): readonly [{ readonly purchase: Purchase; readonly inserted: boolean }, typeof s] => {
          const existing = byRef(s.purchases.values(), candidate.store, candidate.storeRef)
          return existing !== undefined
            ? [{ purchase: existing, inserted: false }, s]
            : [{ purchase: candidate, inserted: true }, { ...s, purchases: withEntry(s.purchases, candidate.id, candidate) }]
        }),
      save: (purchase) => write((s) => ({ ...s, purchases: withEntry(s.purchases, purchase.id, purchase) })),
      findById: (workspaceId, id) =>
        read.pipe(Effect.map((s) => Option.filter(Option.fromNullishOr(s.purchases.get(id)), (p) => p.workspaceId === workspaceId))),
      findByStoreRef: (store, storeRef) => read.pipe(Effect.map((s) => Option.fromNullishOr(byRef(s.purchases.values(), store, storeRef)))),
      list: (workspaceId, page) =>
        read.pipe(Effect.map((s) => pageOf(newestFirst(Array.from(s.purchases.values()).filter((p) => p.workspaceId === workspaceId)), page))),
      listAll: (workspaceId) => read.pipe(Effect.map((s) => Array.from(s.purchases.values()).filter((p) => p.workspaceId === workspaceId))),
      claimDue: (now, limit, leaseUntil) =>
        modify((s) => {
          const due = Array.from(s.purchases.values()).filter((p) => isDue(p.nextCheckAt, now)).slice(0, Math.max(0, limit))
          let purchases = s.purchases
          for (const p of due) purchases = withEntry(purchases, p.id, p.withNextCheck(leaseUntil))
          return [due, { ...s, purchases }]
        }),
      accountLink: (workspaceId, userId, candidate) =>
        modify((s) => {
          const key = `${workspaceId}/${userId}`
          const existing = s.accountLinks.get(key)
          return existing !== undefined
            ? [existing.token, s]
            : [candidate, { ...s, accountLinks: withEntry(s.accountLinks, key, { token: candidate, workspaceId, userId }) }]
        }),
      findAccountLink: (token) =>
        read.pipe(Effect.map((s) => Option.fromNullishOr(Array.from(s.accountLinks.values()).find((link) => link.token === token)))),
      reserveSyncKey: (workspaceId, key, requestHash, now) =>
        modify((s) => {
          const id = `${workspaceId}/${key}`
          const existing = s.purchaseSyncKeys.get(id)
          if (existing !== undefined && DateTime.isGreaterThan(DateTime.add(existing.createdAt, { hours: 24 }), now)) {
            return [Option.some(existing.requestHash), s]
          }
          return [Option.none(), { ...s, purchaseSyncKeys: withEntry(s.purchaseSyncKeys, id, { requestHash, createdAt: now }) }]
        })
    })
  })
)

/** In-memory store notification inbox. */
export const NotificationInboxMemory = Layer.effect(
  NotificationInbox,
  Effect.gen(function*() {
    const { modify, read } = yield* useStore
    const update = (id: string, f: (item: StoreNotification) => StoreNotification) =>
      modify((s) => {
        const item = s.storeNotifications.get(id)
        return item === undefined ? [false, s] : [true, { ...s, storeNotifications: withEntry(s.storeNotifications, id, f(item)) }]
      })
    return NotificationInbox.of({
      listRecent: (limit, only) =>
        read.pipe(Effect.map((s) =>
          Array.from(s.storeNotifications.values())
            .filter((n) => only === undefined || (only === "pending" ? Option.isNone(n.processedAt) : Option.getOrUndefined(n.outcome) === only))
            .sort((a, b) => DateTime.toEpochMillis(b.receivedAt) - DateTime.toEpochMillis(a.receivedAt) || b.id.localeCompare(a.id))
            .slice(0, Math.max(0, limit))
        )),
      insert: (item) =>
        modify((s) => {
          const duplicate = Array.from(s.storeNotifications.values()).some((n) => n.source === item.source && n.externalId === item.externalId)
          return duplicate ? [false, s] : [true, { ...s, storeNotifications: withEntry(s.storeNotifications, item.id, item) }]
        }),
      claimDue: (now, limit, leaseUntil) =>
        modify((s) => {
          const due = Array.from(s.storeNotifications.values())
            .filter((n) => Option.isNone(n.processedAt) && isDue(n.nextAttemptAt, now))
            .slice(0, Math.max(0, limit))
          let items = s.storeNotifications
          for (const n of due) items = withEntry(items, n.id, new StoreNotification({ ...n, nextAttemptAt: Option.some(leaseUntil) }))
          return [due, { ...s, storeNotifications: items }]
        }),
      complete: (id, outcome, at) =>
        update(id, (n) => new StoreNotification({ ...n, processedAt: Option.some(at), outcome: Option.some(outcome), nextAttemptAt: Option.none() })).pipe(
          Effect.asVoid
        ),
      retryAt: (id, attempts, at) => update(id, (n) => new StoreNotification({ ...n, attempts, nextAttemptAt: Option.some(at) })).pipe(Effect.asVoid),
      findById: (id) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.storeNotifications.get(id)))),
      findByExternalId: (source, externalId) =>
        read.pipe(Effect.map((s) => Option.fromNullishOr(Array.from(s.storeNotifications.values()).find((n) => n.source === source && n.externalId === externalId)))),
      requeue: (id, at) =>
        update(id, (n) => new StoreNotification({ ...n, processedAt: Option.none(), outcome: Option.none(), nextAttemptAt: Option.some(at) }))
    })
  })
)
