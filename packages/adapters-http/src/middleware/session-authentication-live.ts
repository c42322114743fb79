import { Accounts, CurrentMember } from "@atrium/domain"
import { Context, Effect, Layer, type Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { InvalidRequestProblem, UnavailableProblem } from "../api/problems.ts"
import { CurrentSession, MemberAuthentication, SessionAuthentication } from "../api/session-authentication.ts"
import { queryCarriesApiKey } from "./key-in-url.ts"
import { presentedCredential } from "./presented-credential.ts"
import { forbiddenProblem, screenSessionCredential, sessionRejectedProblem } from "./session-refusals.ts"

const tokenInUrl = new InvalidRequestProblem({
  detail: "Credentials must not be sent in the URL; use the Authorization: Bearer header"
})
// A lookup that failed proves nothing about the token: never answer 401 for it.
const unavailable = () => Effect.fail(new UnavailableProblem({ detail: "Credentials could not be checked right now; retry shortly" }))

// The bearer token of the request, refused before any lookup when it cannot be a session token.
const sessionToken = Effect.fnUntraced(function*(credential: Redacted.Redacted<string>) {
  const context = yield* Effect.context<HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams>()
  if (queryCarriesApiKey(Context.get(context, HttpServerRequest.ParsedSearchParams))) return yield* tokenInUrl
  const header = Context.get(context, HttpServerRequest.HttpServerRequest).headers.authorization
  return yield* screenSessionCredential(presentedCredential(credential, header))
})

/** The `SessionAuthentication` middleware: the live session of the access token, whatever its memberships. */
export const SessionAuthenticationLive = Layer.effect(
  SessionAuthentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    return SessionAuthentication.of({
      session: Effect.fnUntraced(function*(httpEffect, { credential }) {
        const token = yield* sessionToken(credential)
        const session = yield* accounts.authenticateSession(token).pipe(
          Effect.catchTags({ SessionRejected: sessionRejectedProblem, Unavailable: unavailable })
        )
        return yield* Effect.provideService(httpEffect, CurrentSession, session)
      })
    })
  })
)

/** The `MemberAuthentication` middleware: the member acting in the session's active workspace, checked on every request. */
export const MemberAuthenticationLive = Layer.effect(
  MemberAuthentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    return MemberAuthentication.of({
      session: Effect.fnUntraced(function*(httpEffect, { credential }) {
        const token = yield* sessionToken(credential)
        const member = yield* accounts.authenticate(token).pipe(
          Effect.catchTags({ SessionRejected: sessionRejectedProblem, Forbidden: forbiddenProblem, Unavailable: unavailable })
        )
        return yield* Effect.provideService(httpEffect, CurrentMember, member)
      })
    })
  })
)
