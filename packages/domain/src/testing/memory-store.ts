import { Context, type DateTime, Effect, Layer, Option, Ref, Semaphore } from "effect"
import { comparePositions, type CursorPosition, decodeCursor, encodeCursor, Unavailable } from "../shared/index.ts"
import type { AiTask } from "../ai/index.ts"
import type { ApiKey } from "../keys/index.ts"
import type { AuditEntry } from "../audit/index.ts"
import type { BillingAccount, MonthlyUsage, UsageRecord } from "../billing/index.ts"
import type { Entitlement } from "../entitlements/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import type { IdempotencyEntry } from "../ai/index.ts"
import { Transactor } from "../shared/index.ts"
import type { DomainEvent } from "../audit/index.ts"
import type { CustomDomain } from "../domains/index.ts"
import type { DeliveryAttempt, WebhookDelivery } from "../webhooks/index.ts"
import type { EndpointSecret, WebhookEndpoint } from "../webhooks/index.ts"
import type { Workspace } from "../workspaces/index.ts"
import type { AppearanceSettings } from "../identity/index.ts"
import type { Invitation } from "../identity/index.ts"
import type { Membership } from "../identity/index.ts"
import type { UserCredentials } from "../identity/index.ts"
import type { Session } from "../identity/index.ts"
import type { Schedule, ScheduleRun } from "../schedules/index.ts"
import type { AccountToken, PasswordResetRequest } from "../identity/index.ts"
import type { MailMessage } from "../mail/index.ts"
import type { AccountLink, Purchase, StoreNotification } from "../purchases/index.ts"
import type { FeatureRequest } from "../feedback/index.ts"
import type { NotificationPreferences, PushDevice, PushMessage } from "../notifications/index.ts"

/** A token pair a rotation retired, as the in-memory session store keeps it. */
export interface RetiredTokens {
  readonly sessionId: string
  readonly accessDigest: string
  readonly retiredAt: DateTime.Utc
}

/** Everything the in-memory adapters hold, as one immutable value so a transaction can roll back by restoring it. */
export interface MemoryState {
  readonly workspaces: ReadonlyMap<string, Workspace>
  readonly apiKeys: ReadonlyMap<string, ApiKey>
  readonly entitlements: ReadonlyMap<string, Entitlement>
  readonly audit: ReadonlyArray<AuditEntry>
  readonly events: ReadonlyArray<DomainEvent>
  readonly endpoints: ReadonlyMap<string, WebhookEndpoint>
  readonly secrets: ReadonlyArray<EndpointSecret>
  readonly deliveries: ReadonlyMap<string, WebhookDelivery>
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  readonly aiTasks: ReadonlyMap<string, AiTask>
  /** By `workspaceId/key`. */
  readonly idempotencyKeys: ReadonlyMap<string, IdempotencyEntry & { readonly createdAt: DateTime.Utc }>
  readonly billingAccounts: ReadonlyMap<string, BillingAccount>
  /** By `workspaceId/month`. */
  readonly monthlyUsage: ReadonlyMap<string, MonthlyUsage>
  readonly usageRecords: ReadonlyArray<UsageRecord>
  /** Store transaction ids whose credits were added. */
  readonly creditGrants: ReadonlySet<string>
  readonly purchases: ReadonlyMap<string, Purchase>
  /** By `workspaceId/userId`. */
  readonly accountLinks: ReadonlyMap<string, AccountLink>
  /** By `workspaceId/key`: the request digest and when it was first used. */
  readonly purchaseSyncKeys: ReadonlyMap<string, { readonly requestHash: string; readonly createdAt: DateTime.Utc }>
  readonly storeNotifications: ReadonlyMap<string, StoreNotification>
  /** Users with their password hashes, by id. */
  readonly users: ReadonlyMap<string, UserCredentials>
  readonly memberships: ReadonlyMap<string, Membership>
  readonly sessions: ReadonlyMap<string, Session>
  /** Retired token pairs by refresh digest: the session, the access digest retired with it, and when. */
  readonly retiredRefreshDigests: ReadonlyMap<string, RetiredTokens>
  readonly invitations: ReadonlyMap<string, Invitation>
  /** By `workspaceId/userId`. */
  readonly appearance: ReadonlyMap<string, AppearanceSettings>
  readonly schedules: ReadonlyMap<string, Schedule>
  /** By `scheduleId/epochMillis`: one run per (schedule, instant). */
  readonly scheduleRuns: ReadonlyMap<string, ScheduleRun>
  readonly domains: ReadonlyMap<string, CustomDomain>
  /** One-time account tokens (verification, reset), by id. */
  readonly accountTokens: ReadonlyMap<string, AccountToken>
  /** Password reset requests waiting for the worker, by id, with the epoch millis they are due (leased) until. */
  readonly resetRequests: ReadonlyMap<string, { readonly request: PasswordResetRequest; readonly dueMillis: number }>
  /** The mail outbox, by message id. */
  readonly mailMessages: ReadonlyMap<string, MailMessage>
  readonly featureRequests: ReadonlyMap<string, FeatureRequest>
  /** By `requestId/userId`, to when the vote was cast. */
  readonly featureVotes: ReadonlyMap<string, DateTime.Utc>
  /** By `authorId/idempotencyKey`, to the request id. */
  readonly featureIdempotency: ReadonlyMap<string, string>
  readonly pushDevices: ReadonlyMap<string, PushDevice>
  /** By user id. */
  readonly notificationPreferences: ReadonlyMap<string, NotificationPreferences>
  readonly pushMessages: ReadonlyMap<string, PushMessage>
  /** Push message id to the epoch millis its lease ends. */
  readonly pushLeases: ReadonlyMap<string, number>
}

const emptyState: MemoryState = {
  workspaces: new Map(),
  apiKeys: new Map(),
  entitlements: new Map(),
  audit: [],
  events: [],
  endpoints: new Map(),
  secrets: [],
  deliveries: new Map(),
  attempts: [],
  aiTasks: new Map(),
  idempotencyKeys: new Map(),
  billingAccounts: new Map(),
  monthlyUsage: new Map(),
  usageRecords: [],
  creditGrants: new Set(),
  purchases: new Map(),
  accountLinks: new Map(),
  purchaseSyncKeys: new Map(),
  storeNotifications: new Map(),
  users: new Map(),
  memberships: new Map(),
  sessions: new Map(),
  retiredRefreshDigests: new Map(),
  invitations: new Map(),
  appearance: new Map(),
  schedules: new Map(),
  scheduleRuns: new Map(),
  domains: new Map(),
  accountTokens: new Map(),
  resetRequests: new Map(),
  mailMessages: new Map(),
  featureRequests: new Map(),
  featureVotes: new Map(),
  featureIdempotency: new Map(),
  pushDevices: new Map(),
  notificationPreferences: new Map(),
  pushMessages: new Map(),
  pushLeases: new Map()
}

/** The shared state behind every in-memory port, plus a switch that makes every port fail like a database that is down. */
export class MemoryStore extends Context.Service<MemoryStore, {
  readonly state: Ref.Ref<MemoryState>
  readonly down: Ref.Ref<boolean>
}>()("@atrium/domain/testing/MemoryStore") {
  static readonly layer = Layer.effect(
    MemoryStore,
    Effect.all({ state: Ref.make(emptyState), down: Ref.make(false) }).pipe(Effect.map(MemoryStore.of))
  )
}

/** Fails like an unreachable database while the store is switched down. */
export const ensureUp = Effect.gen(function*() {
  const store = yield* MemoryStore
  if (yield* Ref.get(store.down)) return yield* new Unavailable({ dependency: "database" })
  return store
})

/** Reads, writes and read-modify-writes of the shared state, each failing like a database while the store is down. */
export const useStore = Effect.gen(function*() {
  const store = yield* MemoryStore
  const up = ensureUp.pipe(Effect.provideService(MemoryStore, store))
  const read = up.pipe(Effect.andThen(Ref.get(store.state)))
  const write = (f: (s: MemoryState) => MemoryState) => up.pipe(Effect.andThen(Ref.update(store.state, f)))
  // Read-and-write in one step, like a single SQL statement.
  const modify = <A>(f: (s: MemoryState) => readonly [A, MemoryState]) => up.pipe(Effect.andThen(Ref.modify(store.state, f)))
  return { read, write, modify }
})

/** Returns a copy of `map` with `key` set to `value`. */
export const withEntry = <V>(map: ReadonlyMap<string, V>, key: string, value: V): ReadonlyMap<string, V> =>
  new Map(map).set(key, value)

/**
 * Pages records by their position, newest first unless `oldestFirst`, with the Postgres adapter's cursor: the same
 * records, order and cursors from either implementation. A cursor that does not decode starts over, as in Postgres.
 */
export const pageBy = <A>(items: Iterable<A>, page: PageRequest, positionOf: (item: A) => CursorPosition, oldestFirst = false): Page<A> => {
  const direction = oldestFirst ? 1 : -1
  const sorted = Array.from(items).sort((a, b) => direction * comparePositions(positionOf(a), positionOf(b)))
  const after = Option.match(decodeCursor(page.cursor), {
    onNone: () => sorted,
    onSome: (cursor) => sorted.filter((item) => direction * comparePositions(positionOf(item), cursor) > 0)
  })
  const data = after.slice(0, Math.max(1, Math.trunc(page.limit)))
  const last = data.at(-1)
  return { data, nextCursor: after.length > data.length && last !== undefined ? encodeCursor(positionOf(last)) : null }
}

/** Pages records already in their list's order, each with the cursor its Postgres twin would give it (ranked lists). */
export const pageInOrder = <A>(items: ReadonlyArray<A>, page: PageRequest, cursorOf: (item: A) => string): Page<A> => {
  const after = page.cursor === undefined ? -1 : items.findIndex((item) => cursorOf(item) === page.cursor)
  const rest = items.slice(after + 1)
  const data = rest.slice(0, Math.max(1, Math.trunc(page.limit)))
  const last = data.at(-1)
  return { data, nextCursor: rest.length > data.length && last !== undefined ? cursorOf(last) : null }
}

/** `pageBy` for records positioned by their own `(createdAt, id)`. */
export const pageOf = <A extends CursorPosition>(items: Iterable<A>, page: PageRequest, oldestFirst = false): Page<A> =>
  pageBy(items, page, (item) => item, oldestFirst)

// Marks the fiber as inside a transaction so nested calls join it instead of waiting on the lock.
const InTransaction = Context.Reference<boolean>("@atrium/domain/testing/InTransaction", { defaultValue: () => false })

/** In-memory transactions: one at a time, nested ones join as savepoints, and a failure restores the state as it was before. */
export const TransactorMemory = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const lock = yield* Semaphore.make(1)
    return Transactor.of({
      withTransaction: Effect.fnUntraced(function*(effect) {
        // A nested transaction is a savepoint: its failure undoes its own writes only.
        if (yield* InTransaction) {
          const savepoint = yield* Ref.get(store.state)
          return yield* effect.pipe(Effect.onError(() => Ref.set(store.state, savepoint)))
        }
        yield* ensureUp.pipe(Effect.provideService(MemoryStore, store))
        return yield* lock.withPermits(1)(
          Effect.gen(function*() {
            const before = yield* Ref.get(store.state)
            return yield* effect.pipe(
              Effect.onError(() => Ref.set(store.state, before)),
              Effect.provideService(InTransaction, true)
            )
          })
        )
      }),
      inTransaction: InTransaction
    })
  })
)
