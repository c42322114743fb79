import { CurrentPrincipal, type CustomDomain, CustomDomains, toDomainView } from "@atrium/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { withRetryAfter } from "../retry-after.ts"
import { pageRequestOf } from "./page-request.ts"

/** Handlers of `/api/mobile/domains…`: each acts as the request's principal; `CustomDomains` applies the policy itself. */
export const MobileDomainsHandlers = Layer.unwrap(Effect.gen(function*() {
    const domains = yield* CustomDomains
    const view = (domain: CustomDomain) => toDomainView(domain, domains.policy)
    return leanGroup(HttpApiBuilder.group(Api, "mobileDomains", (handlers) => handlers
      .handle("listDomains", Effect.fn("Mobile.listDomains")(function*({ query }) {
        const page = yield* domains.list(yield* CurrentPrincipal, pageRequestOf(query))
        return { data: page.data.map(view), nextCursor: page.nextCursor }
      }))
      .handle("createDomain", Effect.fn("Mobile.createDomain")(function*({ payload }) {
        return view(yield* domains.create(yield* CurrentPrincipal, { hostname: payload.hostname }))
      }))
      .handle("getDomain", Effect.fn("Mobile.getDomain")(function*({ params }) {
        return view(yield* domains.get(yield* CurrentPrincipal, params.id))
      }))
      .handle("deleteDomain", Effect.fn("Mobile.deleteDomain")(function*({ params }) {
        yield* domains.remove(yield* CurrentPrincipal, params.id)
      }))
      .handle("verifyDomain", Effect.fn("Mobile.verifyDomain")(function*({ params }) {
        return view(yield* withRetryAfter(domains.verify(yield* CurrentPrincipal, params.id)))
      }))))
}))

/** Handler of `GET /api/v1/domains`, in the API key's workspace. */
export const V1DomainsHandlers = Layer.unwrap(Effect.gen(function*() {
    const domains = yield* CustomDomains
    return leanGroup(HttpApiBuilder.group(Api, "v1Domains", (handlers) => handlers
      .handle("listDomains", Effect.fn("V1.listDomains")(function*({ query }) {
        const page = yield* domains.list(yield* CurrentPrincipal, pageRequestOf(query))
        return { data: page.data.map((domain) => toDomainView(domain, domains.policy)), nextCursor: page.nextCursor }
      }))))
}))
