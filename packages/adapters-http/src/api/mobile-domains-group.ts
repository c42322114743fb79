import { DomainId, DomainView } from "@atrium/domain"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { ConflictProblem, DomainTakenProblem, NotEntitledProblem } from "./business-problems.ts"
import { CreateDomain, DomainList } from "./domain-schemas.ts"
import { ForbiddenProblem } from "./identity-problems.ts"
import { MemberAuthorization } from "./member-authorization.ts"
import { NoStore } from "./no-store.ts"
import { PageQuery } from "./page-query.ts"
import { InsufficientScopeProblem, InvalidRequestProblem, NotFoundProblem, RateLimitedProblem, serverProblems } from "./problems.ts"
import { RequiredAction } from "./required-action.ts"
import { MemberAuthentication } from "./session-authentication.ts"
import { strictPayloads } from "./strict-payloads.ts"

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/** Custom domains of the active workspace: members read, admins and owners add, remove and verify. */
export class MobileDomainsGroup extends HttpApiGroup.make("mobileDomains")
  .add(
    HttpApiEndpoint.get("listDomains", "/domains", {
      query: PageQuery,
      success: DomainList,
      error: [ForbiddenProblem, InsufficientScopeProblem, ...serverProblems]
    }).annotate(RequiredAction, "workspace.read").annotateMerge(docs("List custom domains", "Each with its status, `nextAction` and what DNS last showed.")),
    HttpApiEndpoint.post("createDomain", "/domains", {
      payload: CreateDomain,
      success: DomainView.pipe(HttpApiSchema.status(201)),
      error: [InvalidRequestProblem, ForbiddenProblem, InsufficientScopeProblem, NotEntitledProblem, ConflictProblem, NotFoundProblem, ...serverProblems]
    }).annotate(RequiredAction, "domain.manage").annotateMerge(docs(
      "Add a custom domain",
      "Needs the `domains.custom` feature (403 `not_entitled`); at most 20 per workspace (409 `conflict`). The hostname is " +
        "lower-cased and converted to punycode; wildcards, IP addresses and reserved names are 400 `invalid_request`. " +
        "The answer's `nextAction` names the TXT record to publish; checks run at once, then after 1, 5 and 15 minutes and hourly for 7 days."
    )),
    HttpApiEndpoint.get("getDomain", "/domains/:id", {
      params: { id: DomainId },
      success: DomainView,
      error: [NotFoundProblem, ForbiddenProblem, InsufficientScopeProblem, ...serverProblems]
    }).annotate(RequiredAction, "workspace.read").annotateMerge(docs("A custom domain", "Another workspace's id is 404 `not_found`.")),
    HttpApiEndpoint.delete("deleteDomain", "/domains/:id", {
      params: { id: DomainId },
      error: [NotFoundProblem, ForbiddenProblem, InsufficientScopeProblem, ...serverProblems]
    }).annotate(RequiredAction, "domain.manage").annotateMerge(docs("Remove a custom domain", "204; the hostname is released.")),
    HttpApiEndpoint.post("verifyDomain", "/domains/:id/verify", {
      params: { id: DomainId },
      success: DomainView,
      error: [NotFoundProblem, ForbiddenProblem, InsufficientScopeProblem, DomainTakenProblem, RateLimitedProblem, ...serverProblems]
    }).annotate(RequiredAction, "domain.manage").annotateMerge(docs(
      "Check a custom domain now",
      "Looks the TXT record up at once (at most every 10 seconds per domain: 429 `rate_limited` with `Retry-After`). A lookup " +
        "that fails (timeout, SERVFAIL) keeps the status and is shown in `observed.error`. 409 `domain_taken` while another " +
        "workspace holds the hostname and this workspace's own TXT value is not published."
    ))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(MemberAuthorization)
  .middleware(MemberAuthentication)
  .middleware(NoStore)
  .prefix("/api/mobile")
  .annotateMerge(OpenApi.annotations({ title: "mobile: domains", description: "Custom domains of the active workspace, proven by a DNS TXT record." }))
{}
