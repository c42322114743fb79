import {
  Appearance,
  type AppearanceSettings,
  appearanceEtag,
  CurrentPrincipal,
  Entitlements,
  memberOf,
  parseAppearanceEtag,
  PreconditionFailed,
  PreconditionRequired,
  Usage
} from "@atrium/domain"
import { Effect, Layer, Option } from "effect"
import { HttpApiBuilder, HttpApiSchema } from "effect/http-api"
import { Api } from "@atrium/client"
import { accessOf } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { toEntitlementView } from "./views.ts"

const withEtag = (settings: AppearanceSettings) =>
  HttpApiSchema.withHeaders({ body: settings.bundle, headers: { etag: appearanceEtag(settings.version) } })

const ifMatchRequired = new PreconditionRequired({
  detail: "Send If-Match with the ETag of GET /api/mobile/appearance (or * to overwrite any version)"
})

// The entitlement answer names the member's role, so that route narrows to a member session (a check, not a cast).
const currentMember = Effect.gen(function*() {
  return yield* memberOf(yield* CurrentPrincipal)
})

/** Handlers of the `/api/mobile` reads and settings every member may use, in the active workspace. */
export const MobileWorkspaceHandlers = Layer.unwrap(Effect.gen(function*() {
    const entitlements = yield* Entitlements
    const usage = yield* Usage
    const appearance = yield* Appearance
    return leanGroup(HttpApiBuilder.group(Api, "mobileWorkspace", (handlers) => handlers
      .handle("getEntitlement", Effect.fn("Mobile.getEntitlement")(function*() {
        const member = yield* currentMember
        const active = yield* entitlements.active(member)
        return {
          access: accessOf(active.map((entitlement) => entitlement.feature)),
          entitlements: active.map(toEntitlementView),
          role: member.role
        }
      }))
      .handle("getUsage", Effect.fn("Mobile.getUsage")(function*() {
        return yield* usage.current(yield* CurrentPrincipal)
      }))
      .handle("getAppearance", Effect.fn("Mobile.getAppearance")(function*() {
        return withEtag(yield* appearance.get(yield* CurrentPrincipal))
      }))
      .handle("putAppearance", Effect.fn("Mobile.putAppearance")(function*({ headers, payload }) {
        const principal = yield* CurrentPrincipal
        const header = headers["if-match"]
        if (header === undefined) return yield* ifMatchRequired
        const version = header.trim() === "*" ? Option.none() : parseAppearanceEtag(header)
        if (header.trim() !== "*" && Option.isNone(version)) {
          // An ETag we never issued cannot match any version: refuse before writing, naming the current one.
          const current = yield* appearance.get(principal)
          return yield* new PreconditionFailed({ currentVersion: current.version })
        }
        return withEtag(yield* appearance.put(principal, payload, version))
      }))))
}))
