import type { MemberAction } from "@atrium/domain"
import { Context } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

/** Endpoint (or group) annotation naming the action of the domain's role policy an operation needs. */
export const RequiredAction = Context.Reference<MemberAction | undefined>("@atrium/adapters-http/RequiredAction", {
  defaultValue: () => undefined
})

/**
 * The action an endpoint needs: its own annotation, else its group's; an unannotated one needs `owner.manage`, the
 * most restricted action (fail closed).
 */
export const requiredActionOf = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): MemberAction =>
  Context.get(endpoint.annotations, RequiredAction) ?? Context.get(group.annotations, RequiredAction) ?? "owner.manage"
