import { ApiKeys } from "@atrium/domain"
import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { currentMemberCaller } from "./caller.ts"
import { invalidInputProblem, notFoundProblem, unavailableProblem } from "./domain-problems.ts"
import { toManagedApiKeyView } from "./identity-views.ts"
import { pageRequestOf } from "./page-request.ts"

/** Handlers of Settings → Developers: API keys of the active workspace, created and revoked by the member. */
export const MobileDevelopersHandlers = HttpApiBuilder.group(
  Api,
  "mobileDevelopers",
  Effect.fn("MobileDevelopersHandlers.make")(function*(handlers) {
    const keys = yield* ApiKeys
    return handlers
      .handle("listApiKeys", Effect.fn("Mobile.listApiKeys")(function*({ query }) {
        const caller = yield* currentMemberCaller
        const page = yield* keys.list(caller.workspaceId, pageRequestOf(query)).pipe(Effect.catchTag("Unavailable", unavailableProblem))
        return { data: page.data.map(toManagedApiKeyView), nextCursor: page.nextCursor }
      }))
      .handle("createApiKey", Effect.fn("Mobile.createApiKey")(function*({ payload }) {
        const caller = yield* currentMemberCaller
        const created = yield* keys.create({
          workspaceId: caller.workspaceId,
          actor: caller.actor,
          name: payload.name,
          scopes: payload.scopes,
          environment: payload.environment,
          expiresAt: payload.expiresAt
        }).pipe(Effect.catchTags({ InvalidInput: invalidInputProblem, Unavailable: unavailableProblem }))
        return { apiKey: toManagedApiKeyView(created.apiKey), key: Redacted.value(created.plaintext) }
      }))
      .handle("revokeApiKey", Effect.fn("Mobile.revokeApiKey")(function*({ params }) {
        const caller = yield* currentMemberCaller
        yield* keys.revoke(caller.workspaceId, params.id, caller.actor).pipe(
          Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
      }))
  })
)
