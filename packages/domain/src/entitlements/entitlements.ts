import { Context, DateTime, Effect, Equal, Layer, Option } from "effect"
import type { Actor } from "../shared/index.ts"
import { EntitlementChange, EntitlementEvents } from "./entitlement-events.ts"
import { type Acting, actorOf, type Forbidden, type InsufficientScope, permits } from "../access/index.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { Entitlement, type EntitlementSource, type Feature, grantKey } from "./entitlement.ts"
import { type InvalidInput, NotFound, type Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import { EntitlementRepository } from "./entitlement-repository.ts"
import { FeatureCatalog } from "./feature-catalog.ts"
import { deriveView, Transactor } from "../shared/index.ts"

/** What granting a feature needs; the workspace and actor are the acting principal's. */
export interface GrantInput {
  readonly feature: Feature
  readonly source: EntitlementSource
  /** The record within the source (a purchase id); empty by default. */
  readonly sourceRef?: string | undefined
  readonly expiresAt?: DateTime.Utc | undefined
}

/** What revoking a feature needs; without `source` every grant of the feature in force ends. */
export interface RevokeInput {
  readonly feature: Feature
  readonly source?: EntitlementSource | undefined
  readonly sourceRef?: string | undefined
}

/** One feature a source should grant, until `expiresAt` (none: no expiry). */
export interface DesiredGrant {
  readonly feature: Feature
  readonly expiresAt: Option.Option<DateTime.Utc>
}

/** The complete set of grants one source record (e.g. one purchase) should hold now. */
export interface SourceGrantsInput {
  readonly workspaceId: WorkspaceId
  readonly source: EntitlementSource
  readonly sourceRef: string
  readonly grants: ReadonlyArray<DesiredGrant>
  readonly actor: Actor
}

/** What reconciling a source's grants changed. */
export interface SourceGrantsChange {
  readonly granted: ReadonlyArray<Entitlement>
  readonly revoked: ReadonlyArray<Entitlement>
}

// A grant as its events carry it: the purchase behind it, never the raw source reference.
const change = deriveView(Entitlement, EntitlementChange, { withheld: ["workspaceId", "sourceRef", "grantedAt"] })
const changeOf = (entitlement: Entitlement) => change(entitlement, { purchaseId: entitlement.purchaseId })

const byFeatureThenSource = (a: Entitlement, b: Entitlement) =>
  a.feature.localeCompare(b.feature) || a.source.localeCompare(b.source) || a.sourceRef.localeCompare(b.sourceRef)

/** Who may not: a principal lacking the permission. */
type Refused = Forbidden | InsufficientScope

/**
 * Feature grants of a workspace, per source; the workspace holds a feature while any source's grant of it is in force.
 * Reading needs `entitlements.read`; granting and revoking by hand need `entitlements.manage`, the operator's alone
 * (a purchase's grants come through `reconcileSource`, inside the sync the purchase's own checks allowed).
 */
export class Entitlements extends Context.Service<Entitlements, {
  /** Grants in force now in the principal's workspace (expired ones are left out), ordered by feature then source. */
  readonly active: (principal: Acting) => Effect.Effect<ReadonlyArray<Entitlement>, Refused | Unavailable>
  /** Only a feature of the feature catalog is granted; any other is invalid input naming the known ones. */
  readonly grant: (principal: Acting, input: GrantInput) => Effect.Effect<Entitlement, Refused | InvalidInput | Unavailable>
  /** Ends the matching grants in force now (kept as grants that expired now); not found when none is in force. */
  readonly revoke: (principal: Acting, input: RevokeInput) => Effect.Effect<ReadonlyArray<Entitlement>, Refused | NotFound | Unavailable>
  /**
   * Makes one source record's grants exactly `grants`: new or changed ones are granted, ones no longer wanted end now;
   * other sources' grants of the same features are left alone. Joins the caller's transaction.
   */
  readonly reconcileSource: (input: SourceGrantsInput) => Effect.Effect<SourceGrantsChange, Unavailable>
}>()("@atrium/domain/Entitlements") {
  static readonly layer = Layer.effect(
    Entitlements,
    Effect.gen(function*() {
      const repo = yield* EntitlementRepository
      const tx = yield* Transactor
      const changes = yield* ChangeLog
      const catalog = yield* FeatureCatalog

      const active = Effect.fn("Entitlements.active")(function*(principal: Acting) {
        yield* permits(principal, "entitlements.read")
        const now = yield* DateTime.now
        const all = yield* repo.listByWorkspace(principal.workspaceId)
        return all.filter((e) => e.isActiveAt(now)).sort(byFeatureThenSource)
      })

      const recordGranted = (entitlement: Entitlement, actor: Actor) =>
        changes.record({
          workspaceId: entitlement.workspaceId,
          actor,
          action: "entitlement.granted",
          target: entitlement.feature,
          event: emit(EntitlementEvents.granted, changeOf(entitlement))
        })

      const recordRevoked = (entitlement: Entitlement, actor: Actor) =>
        changes.record({
          workspaceId: entitlement.workspaceId,
          actor,
          action: "entitlement.revoked",
          target: entitlement.feature,
          event: emit(EntitlementEvents.revoked, changeOf(entitlement))
        })

      const grant = Effect.fn("Entitlements.grant")(function*(principal: Acting, input: GrantInput) {
        yield* permits(principal, "entitlements.manage")
        const entitlement = new Entitlement({
          workspaceId: principal.workspaceId,
          feature: yield* catalog.known(input.feature),
          source: input.source,
          sourceRef: input.sourceRef ?? "",
          grantedAt: yield* DateTime.now,
          expiresAt: Option.fromNullishOr(input.expiresAt)
        })
        yield* tx.withTransaction(repo.upsert(entitlement).pipe(Effect.andThen(recordGranted(entitlement, actorOf(principal)))))
        return entitlement
      })

      // Revocation is an upsert expiring the grant now, so the repository port (and its Postgres version) needs no delete.
      const revoke = Effect.fn("Entitlements.revoke")(function*(principal: Acting, input: RevokeInput) {
        yield* permits(principal, "entitlements.manage")
        return yield* tx.withTransaction(
          Effect.gen(function*() {
            const now = yield* DateTime.now
            const current = (yield* repo.listByWorkspace(principal.workspaceId)).filter((e) =>
              e.feature === input.feature && e.isActiveAt(now) &&
              (input.source === undefined || e.source === input.source) &&
              (input.sourceRef === undefined || e.sourceRef === input.sourceRef)
            )
            if (current.length === 0) return yield* new NotFound({ resource: "entitlement" })
            return yield* Effect.forEach(current, (grant) =>
              Effect.gen(function*() {
                const revoked = new Entitlement({ ...grant, expiresAt: Option.some(now) })
                yield* repo.upsert(revoked)
                yield* recordRevoked(revoked, actorOf(principal))
                return revoked
              }))
          })
        )
      })

      const reconcileSource = Effect.fn("Entitlements.reconcileSource")(function*(input: SourceGrantsInput) {
        return yield* tx.withTransaction(Effect.gen(function*() {
          const now = yield* DateTime.now
          const mine = (yield* repo.listByWorkspace(input.workspaceId)).filter((e) => e.source === input.source && e.sourceRef === input.sourceRef)
          const byKey = new Map(mine.map((e) => [e.key, e]))
          const wanted = new Set<string>()
          const granted: Array<Entitlement> = []
          const revoked: Array<Entitlement> = []
          for (const desired of input.grants) {
            const key = grantKey(desired.feature, input.source, input.sourceRef)
            wanted.add(key)
            const existing = byKey.get(key)
            const stillInForce = existing !== undefined && existing.isActiveAt(now)
            // An unchanged grant in force is left as it is: re-applying the same state emits nothing.
            if (stillInForce && Equal.equals(existing.expiresAt, desired.expiresAt)) continue
            const next = new Entitlement({
              workspaceId: input.workspaceId,
              feature: desired.feature,
              source: input.source,
              sourceRef: input.sourceRef,
              grantedAt: stillInForce ? existing.grantedAt : now,
              expiresAt: desired.expiresAt
            })
            // A grant that never was and would already be over changes nothing.
            if (existing === undefined && !next.isActiveAt(now)) continue
            yield* repo.upsert(next)
            if (next.isActiveAt(now)) {
              yield* recordGranted(next, input.actor)
              granted.push(next)
            } else if (stillInForce) {
              yield* recordRevoked(next, input.actor)
              revoked.push(next)
            }
          }
          for (const existing of mine) {
            if (wanted.has(existing.key) || !existing.isActiveAt(now)) continue
            const ended = new Entitlement({ ...existing, expiresAt: Option.some(now) })
            yield* repo.upsert(ended)
            yield* recordRevoked(ended, input.actor)
            revoked.push(ended)
          }
          const change: SourceGrantsChange = { granted, revoked }
          return change
        }))
      })

      return Entitlements.of({ active, grant, revoke, reconcileSource })
    })
  )
}
