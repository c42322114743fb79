import { CurrentMember, CurrentPrincipal, type CustomDomain, CustomDomains, type DomainCheckRateLimited, type InsufficientScope, toDomainView } from "@atrium/domain"
import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { InsufficientScopeProblem, RateLimitedProblem } from "../api/problems.ts"
import { forbiddenProblem } from "../middleware/session-refusals.ts"
import {
  conflictProblem,
  domainTakenProblem,
  invalidInputProblem,
  notEntitledProblem,
  notFoundProblem,
  unavailableProblem
} from "./domain-problems.ts"
import { pageRequestOf } from "./page-request.ts"

// A check asked for too soon: 429 with `Retry-After` and the `RateLimit` header the other limits send.
const tooSoonProblem = (error: DomainCheckRateLimited) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, {
      "retry-after": String(error.retryAfterSeconds),
      "ratelimit": `limit=1, remaining=0, reset=${error.retryAfterSeconds}`
    }))
  ).pipe(Effect.andThen(Effect.fail(new RateLimitedProblem({
    retryAfter: error.retryAfterSeconds,
    detail: "This domain was checked moments ago; it can be checked again shortly"
  }))))

const insufficientScopeProblem = (error: InsufficientScope) =>
  Effect.fail(new InsufficientScopeProblem({ requiredScope: error.requiredScope, detail: `This API key lacks the "${error.requiredScope}" scope` }))

/** Handlers of `/api/mobile/domains…`: the member session is the principal; the domain service checks the role again. */
export const MobileDomainsHandlers = HttpApiBuilder.group(
  Api,
  "mobileDomains",
  Effect.fn("MobileDomainsHandlers.make")(function*(handlers) {
    const domains = yield* CustomDomains
    const view = (domain: CustomDomain) => toDomainView(domain, domains.policy)
    return handlers
      .handle("listDomains", Effect.fn("Mobile.listDomains")(function*({ query }) {
        const page = yield* domains.list(yield* CurrentMember, pageRequestOf(query)).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, InsufficientScope: insufficientScopeProblem, Unavailable: unavailableProblem })
        )
        return { data: page.data.map(view), nextCursor: page.nextCursor }
      }))
      .handle("createDomain", Effect.fn("Mobile.createDomain")(function*({ payload }) {
        const created = yield* domains.create(yield* CurrentMember, { hostname: payload.hostname }).pipe(
          Effect.catchTags({
            Forbidden: forbiddenProblem,
            InsufficientScope: insufficientScopeProblem,
            InvalidInput: invalidInputProblem,
            NotEntitled: notEntitledProblem,
            Conflict: conflictProblem,
            NotFound: notFoundProblem,
            Unavailable: unavailableProblem
          })
        )
        return view(created)
      }))
      .handle("getDomain", Effect.fn("Mobile.getDomain")(function*({ params }) {
        const domain = yield* domains.get(yield* CurrentMember, params.id).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, InsufficientScope: insufficientScopeProblem, NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
        return view(domain)
      }))
      .handle("deleteDomain", Effect.fn("Mobile.deleteDomain")(function*({ params }) {
        yield* domains.remove(yield* CurrentMember, params.id).pipe(
          Effect.catchTags({ Forbidden: forbiddenProblem, InsufficientScope: insufficientScopeProblem, NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
      }))
      .handle("verifyDomain", Effect.fn("Mobile.verifyDomain")(function*({ params }) {
        const domain = yield* domains.verify(yield* CurrentMember, params.id).pipe(
          Effect.catchTags({
            Forbidden: forbiddenProblem,
            InsufficientScope: insufficientScopeProblem,
            NotFound: notFoundProblem,
            DomainTaken: domainTakenProblem,
            DomainCheckRateLimited: tooSoonProblem,
            Unavailable: unavailableProblem
          })
        )
        return view(domain)
      }))
  })
)

/** Handler of `GET /api/v1/domains`, in the API key's workspace. */
export const V1DomainsHandlers = HttpApiBuilder.group(
  Api,
  "v1Domains",
  Effect.fn("V1DomainsHandlers.make")(function*(handlers) {
    const domains = yield* CustomDomains
    return handlers.handle("listDomains", Effect.fn("V1.listDomains")(function*({ query }) {
      const page = yield* domains.list(yield* CurrentPrincipal, pageRequestOf(query)).pipe(
        Effect.catchTags({ Forbidden: forbiddenProblem, InsufficientScope: insufficientScopeProblem, Unavailable: unavailableProblem })
      )
      return { data: page.data.map((domain) => toDomainView(domain, domains.policy)), nextCursor: page.nextCursor }
    }))
  })
)
