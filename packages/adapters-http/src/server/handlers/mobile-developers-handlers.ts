import { ApiKeys, CurrentPrincipal, deriveView, RequestLogEntry, RequestLogs } from "@atrium/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { toManagedApiKeyView } from "./identity-views.ts"
import { pageRequestOf } from "./page-request.ts"
import { RequestLogView } from "@atrium/client"

// A log line on the wire: its workspace is the caller's.
const toRequestLogView = deriveView(RequestLogEntry, RequestLogView, { withheld: ["workspaceId"] })

/** Handlers of Settings → Developers: API keys of the active workspace, created, rolled and revoked by the member. */
export const MobileDevelopersHandlers = Layer.unwrap(Effect.gen(function*() {
    const keys = yield* ApiKeys
    const requestLogs = yield* RequestLogs
    return leanGroup(HttpApiBuilder.group(Api, "mobileDevelopers", (handlers) => handlers
      .handle("listApiKeys", Effect.fn("Mobile.listApiKeys")(function*({ query }) {
        const page = yield* keys.list(yield* CurrentPrincipal, pageRequestOf(query))
        return { data: page.data.map(toManagedApiKeyView), nextCursor: page.nextCursor }
      }))
      .handle("createApiKey", Effect.fn("Mobile.createApiKey")(function*({ payload }) {
        const created = yield* keys.create(yield* CurrentPrincipal, {
          name: payload.name,
          scopes: payload.scopes,
          environment: payload.environment,
          expiresAt: payload.expiresAt
        })
        return { apiKey: toManagedApiKeyView(created.apiKey), key: Redacted.value(created.plaintext) }
      }))
      .handle("rollApiKey", Effect.fn("Mobile.rollApiKey")(function*({ params, payload }) {
        const rolled = yield* keys.roll(yield* CurrentPrincipal, {
          id: params.id,
          graceSeconds: payload?.graceSeconds
        })
        return {
          apiKey: toManagedApiKeyView(rolled.apiKey),
          key: Redacted.value(rolled.plaintext),
          previous: toManagedApiKeyView(rolled.previous)
        }
      }))
      .handle("revokeApiKey", Effect.fn("Mobile.revokeApiKey")(function*({ params }) {
        yield* keys.revoke(yield* CurrentPrincipal, params.id)
      }))
      .handle("listRequestLogs", Effect.fn("Mobile.listRequestLogs")(function*({ query }) {
        const page = yield* requestLogs.list(yield* CurrentPrincipal, { keyId: query.keyId, status: query.status, requestId: query.requestId }, pageRequestOf(query))
        return { data: page.data.map(toRequestLogView), nextCursor: page.nextCursor }
      }))))
}))
