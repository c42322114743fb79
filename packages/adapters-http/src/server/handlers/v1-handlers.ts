import { CurrentPrincipal, Entitlements, ModelCatalog, Usage, type Workspace, Workspaces } from "@atrium/domain"
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
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
    // The most frequent call: its JSON is built once per cached workspace object (a new object after each refresh)
    // instead of being re-formatted and re-encoded by the schema on every request. Same body as `WorkspaceView` encodes.
    const workspaceResponses = new WeakMap<Workspace, HttpServerResponse.HttpServerResponse>()
    const workspaceResponse = (workspace: Workspace) => {
      let response = workspaceResponses.get(workspace)
      if (response === undefined) {
        response = HttpServerResponse.text(JSON.stringify(toWorkspaceView(workspace)), { contentType: "application/json" })
        workspaceResponses.set(workspace, response)
      }
      return response
    }
    return leanGroup(HttpApiBuilder.group(Api, "v1", (handlers) => handlers
      // The hot path, in two steps: no span (it would cost more than the cached lookup it wraps), no generator.
      .handle("getCurrentWorkspace", () =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => Effect.map(workspaces.get(principal), workspaceResponse)))
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
