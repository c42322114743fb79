import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { Actor } from "../shared/index.ts"
import { EntitlementEvents } from "./entitlement-events.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { Entitlement, type EntitlementSource, type Feature } from "./entitlement.ts"
import { NotFound, type Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import { EntitlementRepository } from "./entitlement-repository.ts"
import { Transactor } from "../shared/index.ts"

/** What granting a feature needs. */
export interface GrantInput {
  readonly workspaceId: WorkspaceId
  readonly feature: Feature
  readonly source: EntitlementSource
  readonly expiresAt?: DateTime.Utc | undefined
  readonly actor: Actor
}

/** What revoking a feature needs. */
export interface RevokeInput {
  readonly workspaceId: WorkspaceId
  readonly feature: Feature
  readonly actor: Actor
}

/** Feature grants of a workspace. */
export class Entitlements extends Context.Service<Entitlements, {
  /** Grants in force now (expired ones are left out). */
  readonly active: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<Entitlement>, Unavailable>
  readonly grant: (input: GrantInput) => Effect.Effect<Entitlement, Unavailable>
  /** Ends the grant in force now (kept as a grant that expired now); not found when none is in force. */
  readonly revoke: (input: RevokeInput) => Effect.Effect<Entitlement, NotFound | Unavailable>
}>()("@atrium/domain/Entitlements") {
  static readonly layer = Layer.effect(
    Entitlements,
    Effect.gen(function*() {
      const repo = yield* EntitlementRepository
      const tx = yield* Transactor
      const changes = yield* ChangeLog

      const active = Effect.fn("Entitlements.active")(function*(workspaceId: WorkspaceId) {
        const now = yield* DateTime.now
        const all = yield* repo.listByWorkspace(workspaceId)
        return all.filter((e) => e.isActiveAt(now)).sort((a, b) => a.feature.localeCompare(b.feature))
      })

      const grant = Effect.fn("Entitlements.grant")(function*(input: GrantInput) {
        const entitlement = new Entitlement({
          workspaceId: input.workspaceId,
          feature: input.feature,
          source: input.source,
          grantedAt: yield* DateTime.now,
          expiresAt: Option.fromNullishOr(input.expiresAt)
        })
        yield* tx.withTransaction(
          Effect.gen(function*() {
            yield* repo.upsert(entitlement)
            yield* changes.record({
              workspaceId: input.workspaceId,
              actor: input.actor,
              action: "entitlement.granted",
              target: input.feature,
              event: emit(EntitlementEvents.granted, {
                  feature: input.feature,
                  source: input.source,
                  expiresAt: Option.getOrNull(Option.map(entitlement.expiresAt, DateTime.formatIso))
                })
            })
          })
        )
        return entitlement
      })

      // Revocation is an upsert expiring the grant now, so the repository port (and its Postgres version) needs no delete.
      const revoke = Effect.fn("Entitlements.revoke")(function*(input: RevokeInput) {
        return yield* tx.withTransaction(
          Effect.gen(function*() {
            const now = yield* DateTime.now
            const current = (yield* repo.listByWorkspace(input.workspaceId)).find((e) => e.feature === input.feature && e.isActiveAt(now))
            if (current === undefined) return yield* new NotFound({ resource: "entitlement" })
            const revoked = new Entitlement({ ...current, expiresAt: Option.some(now) })
            yield* repo.upsert(revoked)
            yield* changes.record({
              workspaceId: input.workspaceId,
              actor: input.actor,
              action: "entitlement.revoked",
              target: input.feature,
              event: emit(EntitlementEvents.revoked, { feature: revoked.feature, source: revoked.source, expiresAt: DateTime.formatIso(now) })
            })
            return revoked
          })
        )
      })

      return Entitlements.of({ active, grant, revoke })
    })
  )
}
