import { DomainId, DomainView } from "@atrium/domain"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CreateDomain, DomainList } from "./domain-schemas.ts"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { memberRoutes } from "./front-door.ts"
import { PageQuery } from "./page-query.ts"
import { RequiredPermission } from "./security.ts"

/** Custom domains of the active workspace: members read (`domains.read`), admins and owners add, remove and verify (`domains.manage`). */
export class MobileDomainsGroup extends HttpApiGroup.make("mobileDomains")
  .add(
    HttpApiEndpoint.get("listDomains", "/domains", {
      query: PageQuery,
      success: DomainList,
      error: serverErrors
    }).annotate(RequiredPermission, "domains.read").annotateMerge(docs(
      "List custom domains",
      "Each with its status, `nextAction` and what DNS last showed. Every member."
    )),
    HttpApiEndpoint.post("createDomain", "/domains", {
      payload: CreateDomain,
      success: DomainView.pipe(HttpApiSchema.status(201)),
      error: [Problems.InvalidInput, Problems.NotEntitled, Problems.Conflict, Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "domains.manage").annotateMerge(docs(
      "Add a custom domain",
      "Needs the `domains.custom` feature (403 `not_entitled`); at most 20 per workspace (409 `conflict`). The hostname is " +
        "lower-cased and converted to punycode; wildcards, IP addresses and reserved names are 400 `invalid_request`. " +
        "The answer's `nextAction` names the TXT record to publish; checks run at once, then after 1, 5 and 15 minutes and " +
        "hourly for 7 days. Admins and owners."
    )),
    HttpApiEndpoint.get("getDomain", "/domains/:id", {
      params: { id: DomainId },
      success: DomainView,
      error: [Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "domains.read").annotateMerge(docs(
      "A custom domain",
      "Another workspace's id is 404 `not_found`. Every member."
    )),
    HttpApiEndpoint.delete("deleteDomain", "/domains/:id", {
      params: { id: DomainId },
      error: [Problems.NotFound, ...serverErrors]
    }).annotate(RequiredPermission, "domains.manage").annotateMerge(docs(
      "Remove a custom domain",
      "204; the hostname is released. Admins and owners."
    )),
    HttpApiEndpoint.post("verifyDomain", "/domains/:id/verify", {
      params: { id: DomainId },
      success: DomainView,
      error: [Problems.NotFound, Problems.DomainTaken, Problems.RateLimited, ...serverErrors]
    }).annotate(RequiredPermission, "domains.manage").annotateMerge(docs(
      "Check a custom domain now",
      "Looks the TXT record up at once (at most every 10 seconds per domain: 429 `rate_limited` with `Retry-After`). A lookup " +
        "that fails (timeout, SERVFAIL) keeps the status and is shown in `observed.error`. 409 `domain_taken` while another " +
        "workspace holds the hostname and this workspace's own TXT value is not published. Admins and owners."
    ))
  )
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({
    title: "mobile: domains",
    description: "Custom domains of the active workspace, proven by a DNS TXT record."
  }))
{}
