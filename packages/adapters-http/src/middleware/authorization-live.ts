import { ApiKeys, CurrentPrincipal } from "@atrium/domain"
import { Effect, Layer } from "effect"
import { Authorization } from "../api/authorization.ts"
import { InsufficientScopeProblem } from "../api/problems.ts"
import { requiredScopeOf } from "../api/required-scope.ts"
import { challenge, insufficientScopeChallenge } from "./www-authenticate.ts"

/** The `Authorization` middleware: the domain's scope policy applied to each endpoint's `RequiredScope`. */
export const AuthorizationLive = Layer.effect(
  Authorization,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    // Untraced on purpose: it runs on every request, and the domain calls inside it carry spans.
    return Authorization.of(Effect.fnUntraced(function*(httpEffect, { endpoint }) {
      const principal = yield* CurrentPrincipal
      const required = requiredScopeOf(endpoint)
      yield* keys.authorize(principal, required).pipe(
        Effect.catchTag("InsufficientScope", (error) =>
          challenge(insufficientScopeChallenge(error.requiredScope)).pipe(
            Effect.andThen(Effect.fail(new InsufficientScopeProblem({
              requiredScope: error.requiredScope,
              detail: `This API key lacks the "${error.requiredScope}" scope`
            })))
          ))
      )
      return yield* httpEffect
    }))
  })
)
