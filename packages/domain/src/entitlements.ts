import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { Actor } from "./actor.ts"
import { type ChangeDeps, recordChange } from "./change-recorder.ts"
import { Entitlement, type EntitlementSource, type Feature } from "./entitlement.ts"
import type { Unavailable } from "./errors.ts"
import type { WorkspaceId } from "./ids.ts"
import { EntitlementRepository } from "./ports/entitlement-repository.ts"
import { Transactor } from "./ports/transactor.ts"

/** What granting a feature needs. */
export interface GrantInput {
  readonly workspaceId: WorkspaceId
  readonly feature: Feature
  readonly source: EntitlementSource
  readonly expiresAt?: DateTime.Utc | undefined
  readonly actor: Actor
}

/** Feature grants of a workspace. */
export class Entitlements extends Context.Service<Entitlements, {
  /** Grants in force now (expired ones are left out). */
  readonly active: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<Entitlement>, Unavailable>
  readonly grant: (input: GrantInput) => Effect.Effect<Entitlement, Unavailable>
}>()("@atrium/domain/Entitlements") {
  static readonly layer = Layer.effect(
    Entitlements,
    Effect.gen(function*() {
      const repo = yield* EntitlementRepository
      const tx = yield* Transactor
      const context = yield* Effect.context<ChangeDeps>()

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
            yield* recordChange({
              workspaceId: input.workspaceId,
              actor: input.actor,
              action: "entitlement.granted",
              target: input.feature,
              event: {
                type: "entitlement.granted",
                data: {
                  feature: input.feature,
                  source: input.source,
                  expiresAt: Option.getOrNull(Option.map(entitlement.expiresAt, DateTime.formatIso))
                }
              }
            })
          })
        ).pipe(Effect.provide(context))
        return entitlement
      })

      return Entitlements.of({ active, grant })
    })
  )
}
