import { Context, type DateTime, type Effect, type Option } from "effect"
import type { Page, PageRequest, PurchaseId, Unavailable, UserId, WorkspaceId } from "../shared/index.ts"
import type { AppAccountToken, Purchase, Store } from "./purchase.ts"

/** Who an account link names. */
export interface AccountLink {
  readonly token: AppAccountToken
  readonly workspaceId: WorkspaceId
  readonly userId: UserId
}

/** Port: purchases (unique per store and store reference), account links, and the keys of client syncs. */
export class PurchaseRepository extends Context.Service<PurchaseRepository, {
  /**
   * The purchase of `candidate.store`/`candidate.storeRef`, locked for the rest of the transaction: the stored one when
   * it exists (whatever its workspace), else `candidate`, inserted. Racing callers get one row and take turns on it.
   */
  readonly lockOrInsert: (candidate: Purchase) => Effect.Effect<{ readonly purchase: Purchase; readonly inserted: boolean }, Unavailable>
  readonly save: (purchase: Purchase) => Effect.Effect<void, Unavailable>
  readonly findById: (workspaceId: WorkspaceId, id: PurchaseId) => Effect.Effect<Option.Option<Purchase>, Unavailable>
  /** Any workspace's purchase, for the reconciler (which acts for the store, not a caller). */
  readonly findByStoreRef: (store: Store, storeRef: string) => Effect.Effect<Option.Option<Purchase>, Unavailable>
  /** Newest first. */
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<Purchase>, Unavailable>
  /** Every purchase of the workspace (availability, ownership); a workspace holds few. */
  readonly listAll: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<Purchase>, Unavailable>
  /** Leases up to `limit` purchases whose `nextCheckAt` has come, pushing it to `leaseUntil`. */
  readonly claimDue: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<Purchase>, Unavailable>
  /** The (workspace, member)'s link, inserting `candidate` when there is none yet. */
  readonly accountLink: (workspaceId: WorkspaceId, userId: UserId, candidate: AppAccountToken) => Effect.Effect<AppAccountToken, Unavailable>
  readonly findAccountLink: (token: string) => Effect.Effect<Option.Option<AccountLink>, Unavailable>
  /**
   * Reserves a client sync's `Idempotency-Key` for 24 hours; answers the request digest it was first used with when
   * it is already taken (none when this call reserved it).
   */
  readonly reserveSyncKey: (workspaceId: WorkspaceId, key: string, requestHash: string, now: DateTime.Utc) => Effect.Effect<Option.Option<string>, Unavailable>
}>()("@atrium/domain/PurchaseRepository") {}
