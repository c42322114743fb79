import { Context, type DateTime, type Effect, type Option } from "effect"
import type { Conflict, DomainId, Page, PageRequest, Unavailable, WorkspaceId } from "../shared/index.ts"
import type { CustomDomain } from "./custom-domain.ts"
import type { Hostname } from "./hostname.ts"

/** Port: custom domains, and the queue of their checks that the verification workers share. */
export class DomainRepository extends Context.Service<DomainRepository, {
  /** Fails with `Conflict` when the workspace already has the hostname. */
  readonly insert: (domain: CustomDomain) => Effect.Effect<void, Conflict | Unavailable>
  /** Only within `workspaceId`: another workspace's domain is `None`, as if it did not exist. */
  readonly findById: (workspaceId: WorkspaceId, id: DomainId) => Effect.Effect<Option.Option<CustomDomain>, Unavailable>
  /** Newest first. */
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<CustomDomain>, Unavailable>
  readonly count: (workspaceId: WorkspaceId) => Effect.Effect<number, Unavailable>
  /**
   * Every workspace's domain for `hostname`, in id order, locked until the transaction ends (Postgres `FOR UPDATE`), so
   * two workspaces proving the same hostname at once take turns and exactly one holds it.
   */
  readonly lockHostname: (hostname: Hostname) => Effect.Effect<ReadonlyArray<CustomDomain>, Unavailable>
  /** Replaces the stored domain (same id); the hostname, workspace and creation never change. */
  readonly update: (domain: CustomDomain) => Effect.Effect<void, Unavailable>
  readonly delete: (workspaceId: WorkspaceId, id: DomainId) => Effect.Effect<boolean, Unavailable>
  /**
   * Claims up to `limit` domains whose `nextCheckAt` is at or before `now`, soonest due first, and leases them until
   * `leaseUntil` (stored and returned as their `nextCheckAt`). Postgres: `FOR UPDATE SKIP LOCKED`.
   */
  readonly claimDue: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<CustomDomain>, Unavailable>
}>()("@atrium/domain/DomainRepository") {}
