import { Appearance, appearanceEtag, type AppearanceSettings, CurrentMember, Entitlements, parseAppearanceEtag, Usage } from "@atrium/domain"
import { Effect, Option } from "effect"
import { HttpApiBuilder, HttpApiSchema } from "effect/http-api"
import { Api } from "../api/api.ts"
import { accessOf } from "../api/entitlement-access.ts"
import { PreconditionFailedProblem, PreconditionRequiredProblem } from "../api/identity-problems.ts"
import { forbiddenProblem } from "../middleware/session-refusals.ts"
import { invalidInputProblem, preconditionFailedProblem, unavailableProblem } from "./domain-problems.ts"
import { toEntitlementView } from "./views.ts"

const withEtag = (settings: AppearanceSettings) =>
  HttpApiSchema.withHeaders({ body: settings.bundle, headers: { etag: appearanceEtag(settings.version) } })

const ifMatchRequired = new PreconditionRequiredProblem({
  detail: "Send If-Match with the ETag of GET /api/mobile/appearance (or * to overwrite any version)"
})

/** Handlers of the `/api/mobile` reads and settings every member may use, in the active workspace. */
export const MobileWorkspaceHandlers = HttpApiBuilder.group(
  Api,
  "mobileWorkspace",
  Effect.fn("MobileWorkspaceHandlers.make")(function*(handlers) {
    const entitlements = yield* Entitlements
    const usage = yield* Usage
    const appearance = yield* Appearance
    return handlers
      .handle("getEntitlement", Effect.fn("Mobile.getEntitlement")(function*() {
        const member = yield* CurrentMember
        const active = yield* entitlements.active(member.workspaceId).pipe(Effect.catchTag("Unavailable", unavailableProblem))
        return {
          access: accessOf(active.map((entitlement) => entitlement.feature)),
          entitlements: active.map(toEntitlementView),
          role: member.role
        }
      }))
      .handle("getUsage", Effect.fn("Mobile.getUsage")(function*() {
        const member = yield* CurrentMember
        return yield* usage.current(member.workspaceId).pipe(Effect.catchTag("Unavailable", unavailableProblem))
      }))
      .handle("getAppearance", Effect.fn("Mobile.getAppearance")(function*() {
        const settings = yield* appearance.get(yield* CurrentMember).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, Unavailable: unavailableProblem })
        )
        return withEtag(settings)
      }))
      .handle("putAppearance", Effect.fn("Mobile.putAppearance")(function*({ headers, payload }) {
        const member = yield* CurrentMember
        const header = headers["if-match"]
        if (header === undefined) return yield* ifMatchRequired
        const version = header.trim() === "*" ? Option.none() : parseAppearanceEtag(header)
        if (header.trim() !== "*" && Option.isNone(version)) {
          // An ETag we never issued cannot match any version: refuse before writing, naming the current one.
          const current = yield* appearance.get(member).pipe(Effect.catchTags({ Forbidden: forbiddenProblem, Unavailable: unavailableProblem }))
          return yield* new PreconditionFailedProblem({
            currentEtag: appearanceEtag(current.version),
            detail: "If-Match names no version of this resource; nothing was written"
          })
        }
        const saved = yield* appearance.put(member, payload, version).pipe(
          Effect.catchTags({
            Forbidden: forbiddenProblem,
            InvalidInput: invalidInputProblem,
            PreconditionFailed: preconditionFailedProblem,
            Unavailable: unavailableProblem
          })
        )
        return withEtag(saved)
      }))
  })
)
