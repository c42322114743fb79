import { SessionId } from "@atrium/domain"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  CurrentSessionView,
  PasswordResetConfirmRequest,
  PasswordResetRequest,
  RefreshedView,
  RefreshRequest,
  SessionList,
  SignedInView,
  SignedUpView,
  SignInRequest,
  SignUpRequest,
  VerifyEmailRequest
} from "./auth-schemas.ts"
import { docs } from "./endpoint-docs.ts"
import { Problems, serverErrors } from "./errors.ts"
import { publicRoutes, sessionRoutes } from "./front-door.ts"
import { strictPayloads } from "./strict-payloads.ts"

/**
 * `/api/auth` before a session exists: sign up, sign in, refresh, and the mailed links (verify the address, reset a
 * forgotten password). Every answer is `Cache-Control: no-store`.
 */
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
    )),
    HttpApiEndpoint.post("verifyEmail", "/verify-email", {
      payload: VerifyEmailRequest,
      success: HttpApiSchema.NoContent,
      error: [Problems.InvalidInput, Problems.InvalidToken, Problems.RateLimited, ...serverErrors]
    }).annotateMerge(docs(
      "Verify the account's email address",
      "Spends the token of the link mailed at sign-up (or resent), valid once for 24 hours, and marks the address " +
        "verified (204). An unknown, used or expired token is 400 `invalid_token`. Limited per client address."
    )),
    HttpApiEndpoint.post("requestPasswordReset", "/password-reset", {
      payload: PasswordResetRequest,
      success: HttpApiSchema.Accepted,
      error: [Problems.InvalidInput, Problems.RateLimited, ...serverErrors]
    }).annotateMerge(docs(
      "Ask for a password-reset link",
      "Always 202 with no body, whether or not an account has this address (no account enumeration); only when one " +
        "does, a link valid once for 1 hour is mailed to it. Limited per client address and per email (429 `rate_limited`)."
    )),
    HttpApiEndpoint.post("confirmPasswordReset", "/password-reset/confirm", {
      payload: PasswordResetConfirmRequest,
      success: HttpApiSchema.NoContent,
      error: [Problems.InvalidInput, Problems.InvalidToken, Problems.RateLimited, ...serverErrors]
    }).annotateMerge(docs(
      "Set a new password with a reset link",
      "Spends the link's token, sets the password (10–256 characters, else 400 `invalid_request`), signs the account " +
        "out everywhere (every session is revoked) and marks the address verified (204). An unknown, used or expired " +
        "token is 400 `invalid_token`. Limited per client address."
    ))
  )
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .pipe(publicRoutes("/api/auth"))
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
    }).annotateMerge(docs("The current session", "Its user (with `emailVerified`), expiry and active workspace.")),
    HttpApiEndpoint.post("resendVerification", "/verify-email/resend", {
      success: HttpApiSchema.Accepted,
      error: [Problems.EmailAlreadyVerified, Problems.RateLimited, ...serverErrors]
    }).annotateMerge(docs(
      "Mail a new verification link",
      "202: a fresh 24-hour link is mailed to the account's address (earlier ones keep working until used or expired). " +
        "An already verified address is 409 `email_already_verified`. Limited per account and per client address."
    )),
    HttpApiEndpoint.get("listSessions", "/sessions", {
      success: SessionList,
      error: serverErrors
    }).annotateMerge(docs("The user's sessions", "Every live session of the user, most recently used first; `current` marks this one.")),
    HttpApiEndpoint.delete("revokeSession", "/sessions/:id", {
      params: { id: SessionId },
      error: [Problems.NotFound, ...serverErrors]
    }).annotateMerge(docs("End one of the user's sessions", "Another user's session is 404 `not_found`."))
  )
  .pipe(sessionRoutes("/api/auth"))
  .annotateMerge(OpenApi.annotations({ title: "auth session", description: "The member session of the access token." }))
{}
