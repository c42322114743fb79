import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { DomainList } from "./domain-schemas.ts"
import { docs } from "./endpoint-docs.ts"
import { serverErrors } from "./errors.ts"
import { v1Routes } from "./front-door.ts"
import { PageQuery } from "./page-query.ts"
import { RequiredPermission } from "./security.ts"

/** `GET /api/v1/domains`: the read-only mirror for API keys with `read`. */
export class V1DomainsGroup extends HttpApiGroup.make("v1Domains")
  .add(
    HttpApiEndpoint.get("listDomains", "/domains", {
      query: PageQuery,
      success: DomainList,
      error: serverErrors
    })
      .annotate(RequiredPermission, "domains.read")
      .annotateMerge(docs(
        "Custom domains",
        "The key's workspace's domains, newest first: status, `nextAction`, what DNS last showed. Needs scope `read`."
      ))
  )
  .pipe(v1Routes(["api_key"]))
  .annotateMerge(OpenApi.annotations({ title: "v1: domains", description: "Custom domains, read-only." }))
{}
