import type { ApiKeyScope } from "@atrium/domain"
import { Context } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"

/** Endpoint annotation naming the API key scope an operation needs: `endpoint.annotate(RequiredScope, "webhooks:write")`. */
export const RequiredScope = Context.Reference<ApiKeyScope | undefined>("@atrium/adapters-http/RequiredScope", {
  defaultValue: () => undefined
})

const safeMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

/** The scope an endpoint needs; unannotated reads need `read` and unannotated writes need `write` (fail closed). */
export const requiredScopeOf = (endpoint: HttpApiEndpoint.Top): ApiKeyScope =>
  Context.get(endpoint.annotations, RequiredScope) ?? (safeMethods.has(endpoint.method) ? "read" : "write")
