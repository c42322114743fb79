import { Accounts, ApiKeys, authorize } from "@atrium/domain"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { CurrentAnyPrincipal, KeyOrSessionAuthentication, KeyOrSessionAuthorization } from "../api/key-or-session.ts"
import { InsufficientScopeProblem, InvalidRequestProblem, UnauthenticatedProblem, UnavailableProblem } from "../api/problems.ts"
import { requiredActionOf } from "../api/required-action.ts"
import { requiredScopeOf } from "../api/required-scope.ts"
import { queryCarriesApiKey } from "./key-in-url.ts"
import { presentedCredential } from "./presented-credential.ts"
import { forbiddenProblem, sessionRejectedProblem } from "./session-refusals.ts"
import { challenge, insufficientScopeChallenge, unauthenticatedChallenge } from "./www-authenticate.ts"

const keyInUrl = new InvalidRequestProblem({
  detail: "Credentials must not be sent in the URL; use the Authorization: Bearer header"
})
// A lookup that failed proves nothing about the credential: never answer 401 for it.
const unavailable = () => Effect.fail(new UnavailableProblem({ detail: "Credentials could not be checked right now; retry shortly" }))

const refuseKey = (error: { readonly code: UnauthenticatedProblem["code"] }) =>
  challenge(unauthenticatedChallenge(error.code)).pipe(
    Effect.andThen(Effect.fail(new UnauthenticatedProblem({ code: error.code })))
  )

// Session access tokens are `at_…`; everything else is judged as an API key (and is malformed if it is not one).
const isSessionToken = (presented: Redacted.Redacted<string>) => Redacted.value(presented).startsWith("at_")

/** The `KeyOrSessionAuthentication` middleware: an API key through `ApiKeys`, an access token through `Accounts`. */
export const KeyOrSessionAuthenticationLive = Layer.effect(
  KeyOrSessionAuthentication,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const accounts = yield* Accounts
    return KeyOrSessionAuthentication.of({
      keyOrSession: Effect.fnUntraced(function*(httpEffect, { credential }) {
        const context = yield* Effect.context<HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams>()
        if (queryCarriesApiKey(Context.get(context, HttpServerRequest.ParsedSearchParams))) return yield* keyInUrl
        const presented = presentedCredential(credential, Context.get(context, HttpServerRequest.HttpServerRequest).headers.authorization)
        const principal = isSessionToken(presented)
          ? yield* accounts.authenticate(presented).pipe(
            Effect.catchTags({ SessionRejected: sessionRejectedProblem, Forbidden: forbiddenProblem, Unavailable: unavailable })
          )
          : yield* keys.authenticate(presented).pipe(Effect.catchTags({ ApiKeyRejected: refuseKey, Unavailable: unavailable }))
        return yield* Effect.provideService(httpEffect, CurrentAnyPrincipal, principal)
      })
    })
  })
)

/** The `KeyOrSessionAuthorization` middleware: the scope policy for keys, the role policy for members. */
export const KeyOrSessionAuthorizationLive = Layer.effect(
  KeyOrSessionAuthorization,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return KeyOrSessionAuthorization.of(Effect.fnUntraced(function*(httpEffect, { endpoint, group }) {
      const principal = yield* CurrentAnyPrincipal
      if (principal._tag === "ApiKeyPrincipal") {
        yield* keys.authorize(principal, requiredScopeOf(endpoint)).pipe(
          Effect.catchTag("InsufficientScope", (error) =>
            challenge(insufficientScopeChallenge(error.requiredScope)).pipe(
              Effect.andThen(Effect.fail(new InsufficientScopeProblem({
                requiredScope: error.requiredScope,
                detail: `This API key lacks the "${error.requiredScope}" scope`
              })))
            ))
        )
      } else {
        yield* authorize(principal, requiredActionOf(endpoint, group)).pipe(Effect.catchTag("Forbidden", forbiddenProblem))
      }
      return yield* httpEffect
    }))
  })
)
