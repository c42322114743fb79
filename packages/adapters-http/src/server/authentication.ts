import {
  Accounts,
  ApiKeyRejected,
  ApiKeys,
  CurrentPrincipal,
  type Forbidden,
  type InsufficientScope,
  InvalidInput,
  looksLikeApiKey,
  type NotFound,
  type Principal,
  principalId,
  type RateLimited,
  type Session,
  SessionRejected,
  type Unavailable
} from "@atrium/domain"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AcceptedCredentials, Authentication, type CredentialKind, CurrentSession, SessionAuthentication } from "@atrium/client"
import { authorizationHeaderCount } from "./duplicate-headers.ts"
import { queryCarriesApiKey } from "./key-in-url.ts"
import { bearerCredential, isMalformedMarker, presentedCredential } from "./presented-credential.ts"
import { authorized, permissionOf } from "./authorization.ts"
import { type DoorSteps, doorStepsOf } from "./front-door.ts"
import { noStoreHeaders } from "./no-store.ts"
import { makeRateLimitGate, type RateLimitOptions, subjectOf } from "./rate-limit.ts"
import { CurrentRequestFacts, respondWithUnsafe } from "./request-facts.ts"
import { validated } from "./request-validation.ts"
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

// What the door refuses with: the credential (here), then the rate limit, the permission and the request's schema.
type Refusal = ApiKeyRejected | SessionRejected | Forbidden | Unavailable | InvalidInput | RateLimited | InsufficientScope | NotFound

type SessionRefusal = SessionRejected | Unavailable | InvalidInput | RateLimited | NotFound

// A refusal answers with its `WWW-Authenticate` challenge.
const refused = <E>(error: E): Effect.Effect<never, E> => Effect.andThen(challengeFor(error), Effect.fail(error))

// Where the door starts, on every route it guards: `no-store` when declared (refusals too), the route for the access log.
const enterDoor = (context: Context.Context<never>, steps: DoorSteps, path: string) => {
  if (steps.noStore) respondWithUnsafe(context, noStoreHeaders)
  const facts = Context.get(context, CurrentRequestFacts)
  if (facts !== undefined) facts.route = path
  return facts
}

/**
 * THE `Authentication` middleware: an API key through `ApiKeys`, an access token through `Accounts`, per route — and,
 * in the same step, the rest of the route's front door: the rate limit per principal, the domain's policy for the
 * endpoint's `RequiredPermission`, request validation, in the contract's order (those middleware hand over untouched).
 */
export const AuthenticationLive = (rateLimit: RateLimitOptions) => Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const accounts = yield* Accounts
    const gate = yield* makeRateLimitGate(rateLimit)
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
    // Called once per route when it is built; the returned effect runs per request, one fiber step before the lookup.
    return Authentication.of((httpEffect, { endpoint, group }) => {
      const accepted = acceptedBy(endpoint, group)
      const steps = doorStepsOf(endpoint)
      const permission = permissionOf(endpoint, group)
      const handling = steps.validation ? validated(httpEffect) : httpEffect
      // Once the caller is known: its rate limit, then the permission, then the handling.
      const admit = (principal: Principal, context: Context.Context<never>) => {
        const handled = Effect.provideService(handling, CurrentPrincipal, principal)
        const permitted = steps.authorization ? authorized(principal, permission, handled) : handled
        return steps.rateLimit ? gate(principalId(principal), subjectOf(principal), context, permitted) : permitted
      }
      return Effect.withFiber<HttpServerResponse.HttpServerResponse, Refusal | unhandled>((fiber) => {
        const facts = enterDoor(fiber.context, steps, endpoint.path)
        const token = presented(fiber.context)
        if (token instanceof InvalidInput) return Effect.fail(token)
        return Effect.matchEffect(principalOf(token, accepted), {
          onFailure: refused,
          onSuccess: (principal) => {
            if (facts !== undefined) {
              facts.principal = principalId(principal)
              facts.workspace = principal.workspaceId
              facts.key = principal._tag === "ApiKeyPrincipal" ? principal.keyId : undefined
            }
            return admit(principal, fiber.context)
          }
        })
      })
    })
  })
)

/**
 * The `SessionAuthentication` middleware: the live session of the access token, whatever its memberships — and, in
 * the same step, the route's rate limit per session and request validation.
 */
export const SessionAuthenticationLive = (rateLimit: RateLimitOptions) => Layer.effect(
  SessionAuthentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const gate = yield* makeRateLimitGate(rateLimit)
    const sessionOf = (context: Context.Context<never>): Effect.Effect<Session, InvalidInput | SessionRejected | Unavailable> => {
      const token = presented(context)
      if (token instanceof InvalidInput) return Effect.fail(token)
      const refusal = screened(token) ?? (looksLikeApiKey(Redacted.value(token)) ? "malformed_credentials" : undefined)
      if (refusal !== undefined) return Effect.fail(new SessionRejected({ code: refusal }))
      return accounts.authenticateSession(token)
    }
    return SessionAuthentication.of((httpEffect, { endpoint }) => {
      const steps = doorStepsOf(endpoint)
      const handling = steps.validation ? validated(httpEffect) : httpEffect
      const admit = (session: Session, context: Context.Context<never>) => {
        const handled = Effect.provideService(handling, CurrentSession, session)
        return steps.rateLimit ? gate(session.id, "this session", context, handled) : handled
      }
      return Effect.withFiber<HttpServerResponse.HttpServerResponse, SessionRefusal | unhandled>((fiber) => {
        const facts = enterDoor(fiber.context, steps, endpoint.path)
        return Effect.matchEffect(sessionOf(fiber.context), {
          onFailure: refused,
          onSuccess: (session) => {
            if (facts !== undefined) facts.principal = session.id
            return admit(session, fiber.context)
          }
        })
      })
    })
  })
)
