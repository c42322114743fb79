import { ApiKeyId } from "@atrium/domain"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { memberRoutes } from "./front-door.ts"
import { RequiredPermission } from "./security.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiKeyCreated, ApiKeyRolled, CreateApiKey, ManagedApiKeyList, RollApiKeyBody } from "./managed-api-key-schemas.ts"
import { PageQuery } from "./page-query.ts"
import { RequestLogList, RequestLogQuery } from "./request-log-schemas.ts"

/** Settings → Developers: the active workspace's API keys, for admins and owners. */
export class MobileDevelopersGroup extends HttpApiGroup.make("mobileDevelopers")
  .add(
    HttpApiEndpoint.get("listApiKeys", "/api-keys", {
      query: PageQuery,
      success: ManagedApiKeyList,
      error: serverErrors
    }).annotateMerge(docs("List API keys", "Display prefix, scopes, last use and creator; never a secret.")),
    HttpApiEndpoint.post("createApiKey", "/api-keys", {
      payload: CreateApiKey,
      success: ApiKeyCreated.pipe(HttpApiSchema.status(201)),
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotateMerge(docs("Create an API key", "Answers the key's plaintext once.")),
    HttpApiEndpoint.post("rollApiKey", "/api-keys/:id/roll", {
      params: { id: ApiKeyId },
      payload: RollApiKeyBody,
      success: ApiKeyRolled.pipe(HttpApiSchema.status(201)),
      error: [Problems.InvalidInput, Problems.NotFound, Problems.Conflict, ...serverErrors]
    }).annotateMerge(docs(
      "Roll an API key",
      "Issues a new key with the same name, scopes, environment and expiry and answers its plaintext once; the old key " +
        "keeps working for the grace (`graceSeconds`, default 24 h, at most 7 days), then answers 401 `api_key_expired`. " +
        "The body is optional. A revoked, expired or already rolled key is 409 `conflict`."
    )),
    HttpApiEndpoint.delete("revokeApiKey", "/api-keys/:id", {
      params: { id: ApiKeyId },
      error: [Problems.NotFound, ...serverErrors]
    }).annotateMerge(docs("Revoke an API key", "It stops authenticating at once (204).")),
    HttpApiEndpoint.get("listRequestLogs", "/request-logs", {
      query: RequestLogQuery,
      success: RequestLogList,
      error: [Problems.InvalidInput, ...serverErrors]
    }).annotate(RequiredPermission, "request_logs.read").annotateMerge(docs(
      "The request log",
      "Every `/api/v1` request made with a key of the active workspace in the last 7 days, newest first: time, method, " +
        "route template, status, duration and request id; narrowed by `keyId`, `status` and `requestId`. Lines are " +
        "written in batches about a second after the answer. Admins and owners."
    ))
  )
  .annotate(RequiredPermission, "api_keys.manage")
  .pipe(memberRoutes)
  .annotateMerge(OpenApi.annotations({ title: "mobile: developers", description: "API keys of the active workspace and their request log." }))
{}
