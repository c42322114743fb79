import { SessionId } from "@atrium/domain"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  CurrentSessionView,
  RefreshedView,
  RefreshRequest,
  SessionList,
  SignedInView,
  SignedUpView,
  SignInRequest,
  SignUpRequest
} from "./auth-schemas.ts"
import { Problems, serverErrors } from "./errors.ts"
import { NoStore, RateLimit, RequestValidation, SessionAuthentication } from "./security.ts"
import { strictPayloads } from "./strict-payloads.ts"

const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })

/** `/api/auth` before a session exists: sign up, sign in, refresh. Every answer is `Cache-Control: no-store`. */
export class AuthGroup extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("signUp", "/sign-up", {
      payload: SignUpRequest,
      success: SignedUpView.pipe(HttpApiSchema.status(201)),
      error: [Problems.InvalidInput, Problems.EmailTaken, Problems.RateLimited, Problems.Conflict, ...serverErrors]
    }).annotateMerge(docs(
      "Create an account",
      "Creates the user, a personal workspace they own, and a first session. An address already registered is " +
        "409 `email_taken`; a password outside 10–256 characters or a malformed address is 400."
    )),
    HttpApiEndpoint.post("signIn", "/sign-in", {
      payload: SignInRequest,
      success: SignedInView,
      error: [Problems.InvalidInput, Problems.InvalidCredentials, Problems.RateLimited, Problems.Conflict, ...serverErrors]
    }).annotateMerge(docs(
      "Sign in",
      "An unknown email and a wrong password get the very same 401 `invalid_credentials`. Attempts are limited per " +
        "client address and per email (429 `rate_limited` with `Retry-After`). The session acts in the user's oldest workspace."
    )),
    HttpApiEndpoint.post("refresh", "/refresh", {
      payload: RefreshRequest,
      success: RefreshedView,
      error: [Problems.InvalidInput, Problems.SessionRejected, Problems.RateLimited, ...serverErrors]
    }).annotateMerge(docs(
      "Rotate the session's tokens",
      "Answers a new access and refresh token; the presented refresh token is spent. Presenting a spent one again ends " +
        "the whole session (401 `invalid_session`): a stolen token is worth one use at most."
    ))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .middleware(RequestValidation)
  .middleware(NoStore)
  .prefix("/api/auth")
  .annotateMerge(OpenApi.annotations({ title: "auth", description: "Accounts and member sessions for the native app." }))
{}

/** `/api/auth` with an access token: the session itself. Every answer is `Cache-Control: no-store`. */
export class AuthSessionGroup extends HttpApiGroup.make("authSession")
  .add(
    HttpApiEndpoint.post("signOut", "/sign-out", {
      error: serverErrors
    }).annotateMerge(docs("Sign out", "Ends the session of the access token; both its tokens stop working at once (204).")),
    HttpApiEndpoint.get("getSession", "/session", {
      success: CurrentSessionView,
      error: serverErrors
    }).annotateMerge(docs("The current session", "Its user, expiry and active workspace.")),
    HttpApiEndpoint.get("listSessions", "/sessions", {
      success: SessionList,
      error: serverErrors
    }).annotateMerge(docs("The user's sessions", "Every live session of the user, most recently used first; `current` marks this one.")),
    HttpApiEndpoint.delete("revokeSession", "/sessions/:id", {
      params: { id: SessionId },
      error: [Problems.NotFound, ...serverErrors]
    }).annotateMerge(docs("End one of the user's sessions", "Another user's session is 404 `not_found`."))
  )
  .middleware(RequestValidation)
  .middleware(RateLimit)
  .middleware(SessionAuthentication)
  .middleware(NoStore)
  .prefix("/api/auth")
  .annotateMerge(OpenApi.annotations({ title: "auth session", description: "The member session of the access token." }))
{}
