import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { Authentication } from "./authentication.ts"
import { Authorization } from "./authorization.ts"
import { DomainList } from "./domain-schemas.ts"
import { PageQuery } from "./page-query.ts"
import { InsufficientScopeProblem, serverProblems } from "./problems.ts"
import { ForbiddenProblem } from "./identity-problems.ts"
import { RateLimit } from "./rate-limit.ts"
import { RequiredScope } from "./required-scope.ts"

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/** `GET /api/v1/domains`: the read-only mirror for API keys with `read`. */
export class V1DomainsGroup extends HttpApiGroup.make("v1Domains")
  .add(
    HttpApiEndpoint.get("listDomains", "/domains", {
      query: PageQuery,
      success: DomainList,
      error: [InsufficientScopeProblem, ForbiddenProblem, ...serverProblems]
    })
      .annotate(RequiredScope, "read")
      .annotateMerge(docs("Custom domains", "The key's workspace's domains, newest first: status, `nextAction`, what DNS last showed. Needs scope `read`."))
  )
  // Listed innermost first: authentication runs outermost, then the rate limit, then the scope check.
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(Authorization)
  .middleware(RateLimit)
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotateMerge(OpenApi.annotations({ title: "v1: domains", description: "Custom domains, read-only." }))
{}
