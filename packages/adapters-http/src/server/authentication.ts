import {
  Accounts,
  ApiKeyRejected,
  ApiKeys,
  CurrentPrincipal,
  InvalidInput,
  looksLikeApiKey,
  principalId,
  SessionRejected
} from "@atrium/domain"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AcceptedCredentials, Authentication, type CredentialKind, CurrentSession, SessionAuthentication } from "../contract/security.ts"
import { authorizationHeaderCount } from "./duplicate-headers.ts"
import { queryCarriesApiKey } from "./key-in-url.ts"
import { isMalformedMarker, presentedCredential } from "./presented-credential.ts"
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

// Session access tokens are `at_…`; anything else is judged as an API key where keys are accepted.
const isSessionShaped = (text: string) => text.startsWith("at_")

/**
 * The bearer credential as presented ("" when absent, a marker when not Bearer), refused when it is in the URL or
 * when the request carries more than one `Authorization` header.
 */
const presented = Effect.fnUntraced(function*(credential: Redacted.Redacted<string>) {
  const context = yield* Effect.context<HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams>()
  if (queryCarriesApiKey(Context.get(context, HttpServerRequest.ParsedSearchParams))) return yield* credentialInUrl
  const request = Context.get(context, HttpServerRequest.HttpServerRequest)
  if (authorizationHeaderCount(request) > 1) return yield* twoCredentials
  return presentedCredential(credential, request.headers.authorization)
})

/** What is wrong with a presented credential before any lookup: nothing there, or not a Bearer header. */
const screened = (token: Redacted.Redacted<string>): "missing_credentials" | "malformed_credentials" | undefined =>
  Redacted.value(token).length === 0 ? "missing_credentials" : isMalformedMarker(token) ? "malformed_credentials" : undefined

/** THE `Authentication` middleware: an API key through `ApiKeys`, an access token through `Accounts`, per route. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const accounts = yield* Accounts
    const principalOf = Effect.fnUntraced(function*(credential: Redacted.Redacted<string>, accepted: ReadonlyArray<CredentialKind>) {
      const takesKeys = accepted.includes("api_key")
      const takesMembers = accepted.includes("member")
      const token = yield* presented(credential)
      const refusal = screened(token)
      // The refusal's class follows what the route takes; both render the same codes.
      if (refusal !== undefined) return yield* takesKeys ? new ApiKeyRejected({ code: refusal }) : new SessionRejected({ code: refusal })
      const text = Redacted.value(token)
      if (takesMembers && (isSessionShaped(text) || !takesKeys && !looksLikeApiKey(text))) return yield* accounts.authenticate(token)
      if (takesKeys && !isSessionShaped(text)) return yield* keys.authenticate(token)
      // A credential of a kind this route does not take: the client is misconfigured, signing in again will not help.
      return yield* takesKeys ? new ApiKeyRejected({ code: "malformed_credentials" }) : new SessionRejected({ code: "malformed_credentials" })
    })
    return Authentication.of({
      // Untraced on purpose: it runs on every request, and the domain calls inside it carry spans.
      bearer: Effect.fnUntraced(function*(httpEffect, { credential, endpoint, group }) {
        const facts = yield* CurrentRequestFacts
        if (facts !== undefined) facts.route = endpoint.path
        const principal = yield* principalOf(credential, acceptedAt(endpoint, group)).pipe(Effect.tapError(challengeFor))
        if (facts !== undefined) facts.principal = principalId(principal)
        return yield* Effect.provideService(httpEffect, CurrentPrincipal, principal)
      })
    })
  })
)

/** The `SessionAuthentication` middleware: the live session of the access token, whatever its memberships. */
export const SessionAuthenticationLive = Layer.effect(
  SessionAuthentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const sessionOf = Effect.fnUntraced(function*(credential: Redacted.Redacted<string>) {
      const token = yield* presented(credential)
      const refusal = screened(token) ?? (looksLikeApiKey(Redacted.value(token)) ? "malformed_credentials" : undefined)
      if (refusal !== undefined) return yield* new SessionRejected({ code: refusal })
      return yield* accounts.authenticateSession(token)
    })
    return SessionAuthentication.of({
      bearer: Effect.fnUntraced(function*(httpEffect, { credential, endpoint }) {
        const facts = yield* CurrentRequestFacts
        if (facts !== undefined) facts.route = endpoint.path
        const session = yield* sessionOf(credential).pipe(Effect.tapError(challengeFor))
        if (facts !== undefined) facts.principal = session.id
        return yield* Effect.provideService(httpEffect, CurrentSession, session)
      })
    })
  })
)
