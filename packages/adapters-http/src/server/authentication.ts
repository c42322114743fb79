import {
  Accounts,
  ApiKeyRejected,
  ApiKeys,
  CurrentPrincipal,
  type Forbidden,
  InvalidInput,
  looksLikeApiKey,
  type Principal,
  principalId,
  SessionRejected,
  type Unavailable
} from "@atrium/domain"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AcceptedCredentials, Authentication, type CredentialKind, CurrentSession, SessionAuthentication } from "../contract/security.ts"
import { authorizationHeaderCount } from "./duplicate-headers.ts"
import { queryCarriesApiKey } from "./key-in-url.ts"
import { bearerCredential, isMalformedMarker, presentedCredential } from "./presented-credential.ts"
import { CurrentRequestFacts } from "./request-facts.ts"
import { challengeFor } from "./www-authenticate.ts"

const credentialInUrl = new InvalidInput({
  detail: "Credentials must not be sent in the URL; use the Authorization: Bearer header"
})
// Which of two credentials would count is a guess; refuse rather than pick one.
const twoCredentials = new InvalidInput({ detail: "Send exactly one Authorization header" })

/** The kinds of credential a route accepts: the endpoint's annotation, else its group's; none when unannotated. */
const acceptedAt = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): ReadonlyArray<CredentialKind> => {
  const own = Context.get(endpoint.annotations, AcceptedCredentials)
  return own.length > 0 ? own : Context.get(group.annotations, AcceptedCredentials)
}

/** What a route takes, read once when the route is built. */
const acceptedBy = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top) => {
  const kinds = acceptedAt(endpoint, group)
  return { keys: kinds.includes("api_key"), members: kinds.includes("member") }
}

// Session access tokens are `at_…`; anything else is judged as an API key where keys are accepted.
const isSessionShaped = (text: string) => text.startsWith("at_")

/**
 * The bearer credential as presented ("" when absent, a marker when not Bearer), or why it is refused before any
 * lookup: it is in the URL, or the request carries more than one `Authorization` header.
 */
const presented = (context: Context.Context<never>): Redacted.Redacted<string> | InvalidInput => {
  if (queryCarriesApiKey(Context.getUnsafe(context, HttpServerRequest.ParsedSearchParams))) return credentialInUrl
  const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
  if (authorizationHeaderCount(request) > 1) return twoCredentials
  const header = request.headers.authorization
  return presentedCredential(Redacted.make(bearerCredential(header)), header)
}

/** What is wrong with a presented credential before any lookup: nothing there, or not a Bearer header. */
const screened = (token: Redacted.Redacted<string>): "missing_credentials" | "malformed_credentials" | undefined =>
  Redacted.value(token).length === 0 ? "missing_credentials" : isMalformedMarker(token) ? "malformed_credentials" : undefined

type Refusal = ApiKeyRejected | SessionRejected | Forbidden | Unavailable | InvalidInput

// A refusal answers with its `WWW-Authenticate` challenge.
const refused = <E>(error: E): Effect.Effect<never, E> => Effect.andThen(challengeFor(error), Effect.fail(error))

/** THE `Authentication` middleware: an API key through `ApiKeys`, an access token through `Accounts`, per route. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const accounts = yield* Accounts
    const principalOf = (
      token: Redacted.Redacted<string>,
      accepted: { readonly keys: boolean; readonly members: boolean }
    ): Effect.Effect<Principal, ApiKeyRejected | SessionRejected | Forbidden | Unavailable> => {
      const refusal = screened(token)
      // The refusal's class follows what the route takes; both render the same codes.
      if (refusal !== undefined) return Effect.fail(accepted.keys ? new ApiKeyRejected({ code: refusal }) : new SessionRejected({ code: refusal }))
      const text = Redacted.value(token)
      if (accepted.members && (isSessionShaped(text) || !accepted.keys && !looksLikeApiKey(text))) return accounts.authenticate(token)
      if (accepted.keys && !isSessionShaped(text)) return keys.authenticate(token)
      // A credential of a kind this route does not take: the client is misconfigured, signing in again will not help.
      return Effect.fail(accepted.keys ? new ApiKeyRejected({ code: "malformed_credentials" }) : new SessionRejected({ code: "malformed_credentials" }))
    }
    // One fiber step before the lookup: it runs on every request, and the domain calls inside it carry spans.
    // Called once per route when it is built; the returned effect runs per request.
    return Authentication.of((httpEffect, { endpoint, group }) => {
      const accepted = acceptedBy(endpoint, group)
      return Effect.withFiber<HttpServerResponse.HttpServerResponse, Refusal | unhandled>((fiber) => {
        const facts = Context.get(fiber.context, CurrentRequestFacts)
        if (facts !== undefined) facts.route = endpoint.path
        const token = presented(fiber.context)
        if (token instanceof InvalidInput) return Effect.fail(token)
        return Effect.matchEffect(principalOf(token, accepted), {
          onFailure: refused,
          onSuccess: (principal) => {
            if (facts !== undefined) facts.principal = principalId(principal)
            return Effect.provideService(httpEffect, CurrentPrincipal, principal)
          }
        })
      })
    })
  })
)

/** The `SessionAuthentication` middleware: the live session of the access token, whatever its memberships. */
export const SessionAuthenticationLive = Layer.effect(
  SessionAuthentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const sessionOf = Effect.fnUntraced(function*(context: Context.Context<never>) {
      const token = presented(context)
      if (token instanceof InvalidInput) return yield* token
      const refusal = screened(token) ?? (looksLikeApiKey(Redacted.value(token)) ? "malformed_credentials" : undefined)
      if (refusal !== undefined) return yield* new SessionRejected({ code: refusal })
      return yield* accounts.authenticateSession(token)
    })
    return SessionAuthentication.of((httpEffect, { endpoint }) =>
      Effect.withFiber((fiber) => {
        const facts = Context.get(fiber.context, CurrentRequestFacts)
        if (facts !== undefined) facts.route = endpoint.path
        return Effect.matchEffect(sessionOf(fiber.context), {
          onFailure: refused,
          onSuccess: (session) => {
            if (facts !== undefined) facts.principal = session.id
            return Effect.provideService(httpEffect, CurrentSession, session)
          }
        })
      }))
  })
)
