import { CurrentPrincipal, Entitlements, ModelCatalog, Usage, Workspaces } from "@atrium/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { notFoundProblem, unavailableProblem } from "./domain-problems.ts"
import { toEntitlementView, toModelRequirementView, toWorkspaceView } from "./views.ts"

/** Handlers of `/api/v1`; each acts in the principal's workspace, never one named by the client. */
export const V1Handlers = HttpApiBuilder.group(
  Api,
  "v1",
  Effect.fn("V1Handlers.make")(function*(handlers) {
    const workspaces = yield* Workspaces
    const entitlements = yield* Entitlements
    const catalog = yield* ModelCatalog
    const usage = yield* Usage
    return handlers
      .handle("getCurrentWorkspace", Effect.fn("V1.getCurrentWorkspace")(function*() {
        const principal = yield* CurrentPrincipal
        const workspace = yield* workspaces.get(principal.workspaceId).pipe(
          Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
        return toWorkspaceView(workspace)
      }))
      .handle("listEntitlements", Effect.fn("V1.listEntitlements")(function*() {
        const principal = yield* CurrentPrincipal
        const active = yield* entitlements.active(principal.workspaceId).pipe(
          Effect.catchTag("Unavailable", unavailableProblem)
        )
        return { data: active.map(toEntitlementView) }
      }))
      .handle("listModelRequirements", Effect.fn("V1.listModelRequirements")(function*() {
        const specs = yield* catalog.list
        return { data: specs.map(toModelRequirementView) }
      }))
      .handle("getUsage", Effect.fn("V1.getUsage")(function*() {
        const principal = yield* CurrentPrincipal
        return yield* usage.current(principal.workspaceId).pipe(Effect.catchTag("Unavailable", unavailableProblem))
      }))
  })
)
