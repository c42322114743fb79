import {
  Accounts,
  ApiKeyRejected,
  ApiKeys,
  CurrentPrincipal,
  Forbidden,
  type InsufficientScope,
  InvalidInput,
  isPermitted,
  looksLikeApiKey,
  type NotFound,
  type Permission,
  permits,
  type Principal,
  principalId,
  type RateLimited,
  type Session,
  SessionRejected,
  type Unavailable
} from "@atrium/domain"
import { Context, Effect, Layer, Redacted } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import type { unhandled } from "effect/Types"
import {
  AcceptedCredentials,
  type CredentialKind,
  CurrentSession,
  MobileGate,
  PublicGate,
  RequiredPermission,
  SessionGate,
  V1Gate
} from "@atrium/client"
import { presented, screened } from "./presented-credential.ts"
import { makeRateLimitGate, type RateLimitOptions } from "./rate-limit.ts"
import { CurrentRequestFacts, respondWithUnsafe } from "./request-facts.ts"
import { validated } from "./request-validation.ts"
import { challengeFor } from "./www-authenticate.ts"

/*
 * The contract's gates (declared in `@atrium/client`'s security.ts), each one step per request: the route is read
 * once when it is built, and each request walks credential → principal → rate limit → permission → validation →
 * handler below, top to bottom. Nothing else stands between the envelope and a handler.
 */

type Route = { readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top }
type Handling = Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, CurrentPrincipal>

// A refusal answers with its `WWW-Authenticate` challenge.
const refused = <E>(error: E): Effect.Effect<never, E> => Effect.andThen(challengeFor(error), Effect.fail(error))

const noStore: Record<string, string> = { "cache-control": "no-store" }

// Where every gate starts: `no-store` where it applies (refusals too), the route template for the access log.
const enter = (context: Context.Context<never>, path: string, marksNoStore: boolean) => {
  if (marksNoStore) respondWithUnsafe(context, noStore)
  const facts = Context.get(context, CurrentRequestFacts)
  if (facts !== undefined) facts.route = path
  return facts
}

// ——— credential → principal ———

/** Which kinds of credential `V1Gate` takes on a route: the endpoint's annotation, else its group's; none unannotated. */
const acceptedBy = ({ endpoint, group }: Route) => {
  const own = Context.get(endpoint.annotations, AcceptedCredentials)
  const kinds: ReadonlyArray<CredentialKind> = own.length > 0 ? own : Context.get(group.annotations, AcceptedCredentials)
  return { keys: kinds.includes("api_key"), members: kinds.includes("member") }
}

/** What a principal gate takes and marks: the credentials a route accepts, and whether its answers are `no-store`. */
interface PrincipalDoor {
  readonly accepted: (route: Route) => { readonly keys: boolean; readonly members: boolean }
  readonly noStore: boolean
}

const v1Door: PrincipalDoor = { accepted: acceptedBy, noStore: false }
const mobileDoor: PrincipalDoor = { accepted: () => ({ keys: false, members: true }), noStore: true }

// Session access tokens are `at_…`; anything else is judged as an API key where keys are accepted.
const isSessionShaped = (text: string) => text.startsWith("at_")

// ——— permission ———

const undeclared = new Forbidden({ detail: "This operation declares no permission, so no one may call it" })

/** The permission an endpoint needs: its own annotation, else its group's. */
const permissionOf = ({ endpoint, group }: Route): Permission | undefined =>
  Context.get(endpoint.annotations, RequiredPermission) ?? Context.get(group.annotations, RequiredPermission)

/** The domain's one policy: a permitted principal costs one check; no permission named is open to no one (fail closed). */
const authorized = <A, E, R>(principal: Principal, permission: Permission | undefined, next: Effect.Effect<A, E, R>) => {
  if (permission === undefined) return Effect.fail(undeclared)
  return isPermitted(principal, permission) ? next : Effect.andThen(permits(principal, permission).pipe(Effect.tapError(challengeFor)), next)
}

type PrincipalRefusal = ApiKeyRejected | SessionRejected | Forbidden | Unavailable | InvalidInput | RateLimited | InsufficientScope | NotFound

/** `V1Gate` and `MobileGate`: the bearer credential to a `CurrentPrincipal`, then its limit, permission and validation. */
const principalGate = (rateLimit: RateLimitOptions, door: PrincipalDoor) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const accounts = yield* Accounts
    const limit = yield* makeRateLimitGate(rateLimit)
    // The refusal's class follows what the route takes; both render the same codes.
    const rejected = (accepted: { readonly keys: boolean }, code: "missing_credentials" | "malformed_credentials") =>
      Effect.fail(accepted.keys ? new ApiKeyRejected({ code }) : new SessionRejected({ code }))
    const principalOf = (
      token: Redacted.Redacted<string>,
      accepted: { readonly keys: boolean; readonly members: boolean }
    ): Effect.Effect<Principal, ApiKeyRejected | SessionRejected | Forbidden | Unavailable> => {
      const refusal = screened(token)
      if (refusal !== undefined) return rejected(accepted, refusal)
      const text = Redacted.value(token)
      if (accepted.members && (isSessionShaped(text) || !accepted.keys && !looksLikeApiKey(text))) return accounts.authenticate(token)
      if (accepted.keys && !isSessionShaped(text)) return keys.authenticate(token)
      // A credential of a kind this route does not take: the client is misconfigured, signing in again will not help.
      return rejected(accepted, "malformed_credentials")
    }
    return (handler: Handling, route: Route) => {
      const accepted = door.accepted(route)
      const permission = permissionOf(route)
      const handling = validated(handler)
      return Effect.withFiber<HttpServerResponse.HttpServerResponse, PrincipalRefusal | unhandled>((fiber) => {
        const facts = enter(fiber.context, route.endpoint.path, door.noStore)
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
            const subject = principal._tag === "ApiKeyPrincipal" ? "this API key" : "this session"
            return limit(principalId(principal), subject, fiber.context,
              authorized(principal, permission, Effect.provideService(handling, CurrentPrincipal, principal)))
          }
        })
      })
    }
  })

/** `/api/v1`: see `V1Gate`. */
const V1GateLive = (rateLimit: RateLimitOptions) =>
  Layer.effect(V1Gate, Effect.map(principalGate(rateLimit, v1Door), (gate) => V1Gate.of(gate)))

/** `/api/mobile` in the active workspace: see `MobileGate` (members only, `no-store`). */
const MobileGateLive = (rateLimit: RateLimitOptions) =>
  Layer.effect(MobileGate, Effect.map(principalGate(rateLimit, mobileDoor), (gate) => MobileGate.of(gate)))

/** Routes on the session itself: see `SessionGate` — the access token's live session, its limit, validation. */
const SessionGateLive = (rateLimit: RateLimitOptions) => Layer.effect(
  SessionGate,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const limit = yield* makeRateLimitGate(rateLimit)
    const sessionOf = (context: Context.Context<never>): Effect.Effect<Session, InvalidInput | SessionRejected | Unavailable> => {
      const token = presented(context)
      if (token instanceof InvalidInput) return Effect.fail(token)
      const refusal = screened(token) ?? (looksLikeApiKey(Redacted.value(token)) ? "malformed_credentials" : undefined)
      if (refusal !== undefined) return Effect.fail(new SessionRejected({ code: refusal }))
      return accounts.authenticateSession(token)
    }
    return SessionGate.of((handler, { endpoint }) => {
      const handling = validated(handler)
      return Effect.withFiber((fiber) => {
        const facts = enter(fiber.context, endpoint.path, true)
        return Effect.matchEffect(sessionOf(fiber.context), {
          onFailure: refused,
          onSuccess: (session) => {
            if (facts !== undefined) facts.principal = session.id
            return limit(session.id, "this session", fiber.context, Effect.provideService(handling, CurrentSession, session))
          }
        })
      })
    })
  })
)

/** Routes without a bearer credential: see `PublicGate` — validation, `no-store`. */
const PublicGateLive = Layer.succeed(
  PublicGate,
  PublicGate.of((handler, { endpoint }) => {
    const handling = validated(handler)
    return Effect.withFiber((fiber) => {
      enter(fiber.context, endpoint.path, true)
      return handling
    })
  })
)

/** Every gate of the contract, counting requests per principal or session in the app's `RateLimiter`. */
export const GatesLive = (rateLimit: RateLimitOptions) =>
  Layer.mergeAll(V1GateLive(rateLimit), MobileGateLive(rateLimit), SessionGateLive(rateLimit), PublicGateLive)
