import { CurrentPrincipal, Entitlements, ModelCatalog, Usage, Workspaces } from "@atrium/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { toEntitlementView, toModelRequirementView, toWorkspaceView } from "./views.ts"

/** Handlers of `/api/v1`; each acts in the principal's workspace, never one named by the client. */
export const V1Handlers = Layer.unwrap(Effect.gen(function*() {
    const workspaces = yield* Workspaces
    const entitlements = yield* Entitlements
    const catalog = yield* ModelCatalog
    const usage = yield* Usage
    return leanGroup(HttpApiBuilder.group(Api, "v1", (handlers) => handlers
      // The hot path, in two steps: no span (it would cost more than the cached lookup it wraps), no generator.
      .handle("getCurrentWorkspace", () =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => Effect.map(workspaces.get(principal), toWorkspaceView)))
      .handle("listEntitlements", Effect.fn("V1.listEntitlements")(function*() {
        const active = yield* entitlements.active(yield* CurrentPrincipal)
        return { data: active.map(toEntitlementView) }
      }))
      .handle("listModelRequirements", Effect.fn("V1.listModelRequirements")(function*() {
        const specs = yield* catalog.requirements(yield* CurrentPrincipal)
        return { data: specs.map(toModelRequirementView) }
      }))
      .handle("getUsage", Effect.fn("V1.getUsage")(function*() {
        return yield* usage.current(yield* CurrentPrincipal)
      }))))
}))
