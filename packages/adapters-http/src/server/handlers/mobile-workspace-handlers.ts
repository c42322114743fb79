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

// These routes take member sessions only; the narrowing is a check, not a cast.
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
        const active = yield* entitlements.active(member.workspaceId)
        return {
          access: accessOf(active.map((entitlement) => entitlement.feature)),
          entitlements: active.map(toEntitlementView),
          role: member.role
        }
      }))
      .handle("getUsage", Effect.fn("Mobile.getUsage")(function*() {
        return yield* usage.current((yield* CurrentPrincipal).workspaceId)
      }))
      .handle("getAppearance", Effect.fn("Mobile.getAppearance")(function*() {
        return withEtag(yield* appearance.get(yield* currentMember))
      }))
      .handle("putAppearance", Effect.fn("Mobile.putAppearance")(function*({ headers, payload }) {
        const member = yield* currentMember
        const header = headers["if-match"]
        if (header === undefined) return yield* ifMatchRequired
        const version = header.trim() === "*" ? Option.none() : parseAppearanceEtag(header)
        if (header.trim() !== "*" && Option.isNone(version)) {
          // An ETag we never issued cannot match any version: refuse before writing, naming the current one.
          const current = yield* appearance.get(member)
          return yield* new PreconditionFailed({ currentVersion: current.version })
        }
        return withEtag(yield* appearance.put(member, payload, version))
      }))))
}))
