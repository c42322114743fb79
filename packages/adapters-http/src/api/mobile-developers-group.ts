import { ApiKeyId } from "@atrium/domain"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiKeyCreated, CreateApiKey, ManagedApiKeyList } from "./managed-api-key-schemas.ts"
import { MemberAuthorization } from "./member-authorization.ts"
import { NoStore } from "./no-store.ts"
import { PageQuery } from "./page-query.ts"
import { InvalidRequestProblem, NotFoundProblem, serverProblems } from "./problems.ts"
import { RequiredAction } from "./required-action.ts"
import { MemberAuthentication } from "./session-authentication.ts"
import { strictPayloads } from "./strict-payloads.ts"

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/** Settings → Developers: the active workspace's API keys, for admins and owners. */
export class MobileDevelopersGroup extends HttpApiGroup.make("mobileDevelopers")
  .add(
    HttpApiEndpoint.get("listApiKeys", "/api-keys", {
      query: PageQuery,
      success: ManagedApiKeyList,
      error: serverProblems
    }).annotateMerge(docs("List API keys", "Display prefix, scopes, last use and creator; never a secret.")),
    HttpApiEndpoint.post("createApiKey", "/api-keys", {
      payload: CreateApiKey,
      success: ApiKeyCreated.pipe(HttpApiSchema.status(201)),
      error: [InvalidRequestProblem, ...serverProblems]
    }).annotateMerge(docs("Create an API key", "Answers the key's plaintext once.")),
    HttpApiEndpoint.delete("revokeApiKey", "/api-keys/:id", {
      params: { id: ApiKeyId },
      error: [NotFoundProblem, ...serverProblems]
    }).annotateMerge(docs("Revoke an API key", "It stops authenticating at once (204)."))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .annotate(RequiredAction, "api_key.manage")
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(MemberAuthorization)
  .middleware(MemberAuthentication)
  .middleware(NoStore)
  .prefix("/api/mobile")
  .annotateMerge(OpenApi.annotations({ title: "mobile: developers", description: "API keys of the active workspace." }))
{}
