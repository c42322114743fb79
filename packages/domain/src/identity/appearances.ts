import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { AppearanceBundle, AppearanceSettings, stampAppearance } from "./appearance.ts"
import { permits } from "../access/index.ts"
import { type Forbidden } from "../access/index.ts"
import { InvalidInput, PreconditionFailed, type Unavailable } from "../shared/index.ts"
import { AppearanceRepository } from "./appearance-repository.ts"
import { type Acting, memberOf, type SessionPrincipal } from "../access/index.ts"

/** A member's appearance bundle in their active workspace, versioned for `ETag` / `If-Match`. */
export class Appearance extends Context.Service<Appearance, {
  /** The stored bundle, or the default at version 0. */
  readonly get: (principal: Acting) => Effect.Effect<AppearanceSettings, Forbidden | Unavailable>
  /**
   * Validates and saves `bundle` as the next version. With `ifMatch`, only while it is the current version, else
   * `PreconditionFailed` and nothing is written; without it, against whatever version is current.
   */
  readonly put: (principal: Acting, bundle: unknown, ifMatch: Option.Option<number>) => Effect.Effect<AppearanceSettings, Forbidden | InvalidInput | PreconditionFailed | Unavailable>
}>()("@atrium/domain/Appearance") {
  static readonly layer = Layer.effect(
    Appearance,
    Effect.gen(function*() {
      const repo = yield* AppearanceRepository
      const decode = Schema.decodeUnknownEffect(AppearanceBundle)

      const current = (principal: SessionPrincipal) =>
        repo.get(principal.workspaceId, principal.userId).pipe(
          Effect.map(Option.getOrElse(() => AppearanceSettings.initial(principal.workspaceId, principal.userId)))
        )

      const get = Effect.fn("Appearance.get")(function*(acting: Acting) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "appearance.read")
        return yield* current(principal)
      })

      const put = Effect.fn("Appearance.put")(function*(acting: Acting, bundle: unknown, ifMatch: Option.Option<number>) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "appearance.write")
        const valid = yield* decode(bundle).pipe(Effect.mapError((error) => new InvalidInput({ detail: error.message })))
        const stored = yield* current(principal)
        if (Option.isSome(ifMatch) && ifMatch.value !== stored.version) {
          return yield* new PreconditionFailed({ currentVersion: stored.version })
        }
        const next = stampAppearance(stored, valid, yield* DateTime.now)
        // The compare-and-set closes the gap between the read above and this write.
        if (!(yield* repo.put(next, stored.version))) {
          return yield* new PreconditionFailed({ currentVersion: (yield* current(principal)).version })
        }
        return next
      })

      return Appearance.of({ get, put })
    })
  )
}
