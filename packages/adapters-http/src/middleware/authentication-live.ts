import { ApiKeyRejected, ApiKeys, CurrentPrincipal } from "@atrium/domain"
import { Context, Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { Authentication } from "../api/authentication.ts"
import { InvalidRequestProblem, UnauthenticatedProblem, UnavailableProblem } from "../api/problems.ts"
import { queryCarriesApiKey } from "./key-in-url.ts"
import { presentedCredential } from "./presented-credential.ts"
import { challenge, unauthenticatedChallenge } from "./www-authenticate.ts"

const keyInUrl = new InvalidRequestProblem({
  detail: "API keys must not be sent in the URL; use the Authorization: Bearer header"
})
const unavailable = new UnavailableProblem({ detail: "Credentials could not be checked right now; retry shortly" })

const refuse = (error: ApiKeyRejected) =>
  challenge(unauthenticatedChallenge(error.code)).pipe(
    Effect.andThen(Effect.fail(new UnauthenticatedProblem({ code: error.code })))
  )

/** The `Authentication` middleware over the domain's `ApiKeys`. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return Authentication.of({
      // Untraced on purpose: it runs on every request, and the domain calls inside it carry spans.
      bearer: Effect.fnUntraced(function*(httpEffect, { credential }) {
        const context = yield* Effect.context<HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams>()
        // Refused before any lookup, whether or not the key is valid.
        if (queryCarriesApiKey(Context.get(context, HttpServerRequest.ParsedSearchParams))) return yield* keyInUrl
        const presented = presentedCredential(credential, Context.get(context, HttpServerRequest.HttpServerRequest).headers.authorization)
        const principal = yield* keys.authenticate(presented).pipe(
          Effect.catchTags({
            ApiKeyRejected: refuse,
            // A lookup that failed proves nothing about the key: never answer 401 for it.
            Unavailable: () => Effect.fail(unavailable)
          })
        )
        return yield* Effect.provideService(httpEffect, CurrentPrincipal, principal)
      })
    })
  })
)
