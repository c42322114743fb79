import { Accounts, EmailVerification, type InvalidToken, PasswordReset } from "@atrium/domain"
import { DateTime, Effect, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { CurrentSession } from "../api/session-authentication.ts"
import { invalidCredentialsProblem, sessionRejectedProblem } from "../middleware/session-refusals.ts"
import { conflictProblem, emailTakenProblem, invalidInputProblem, notFoundProblem, unavailableProblem } from "./domain-problems.ts"
import { toSessionSummaryView, toSessionTokens, toUserView } from "./identity-views.ts"
import { EmailAlreadyVerifiedProblem, InvalidTokenProblem } from "../api/identity-problems.ts"
import { AccountMailThrottle } from "./account-mail-throttle.ts"
import { SignInThrottle } from "./sign-in-throttle.ts"
import { toWorkspaceView } from "./views.ts"

const userAgentOf = HttpServerRequest.HttpServerRequest.useSync((request) => request.headers["user-agent"])
const clientAddress = HttpServerRequest.HttpServerRequest.useSync((request) => Option.getOrElse(request.remoteAddress, () => "unknown"))

const invalidTokenProblem = (_: InvalidToken) => Effect.fail(new InvalidTokenProblem({}))

/** Handlers of `/api/auth` before a session: sign-up, rate-limited sign-in, refresh rotation. */
export const AuthHandlers = HttpApiBuilder.group(
  Api,
  "auth",
  Effect.fn("AuthHandlers.make")(function*(handlers) {
    const accounts = yield* Accounts
    const throttle = yield* SignInThrottle
    const mailThrottle = yield* AccountMailThrottle
    const verification = yield* EmailVerification
    const passwordReset = yield* PasswordReset
    return handlers
      .handle("signUp", Effect.fn("Auth.signUp")(function*({ payload }) {
        const signedUp = yield* accounts.signUp({
          email: payload.email,
          password: Redacted.make(payload.password, { label: "Password" }),
          name: payload.name,
          userAgent: yield* userAgentOf
        }).pipe(Effect.catchTags({
          EmailTaken: emailTakenProblem,
          InvalidInput: invalidInputProblem,
          Conflict: conflictProblem,
          Unavailable: unavailableProblem
        }))
        return { user: toUserView(signedUp.user), workspace: toWorkspaceView(signedUp.workspace), session: toSessionTokens(signedUp.session) }
      }))
      .handle("signIn", Effect.fn("Auth.signIn")(function*({ payload }) {
        const request = yield* HttpServerRequest.HttpServerRequest
        // Counted before the password is checked: a refused guess costs the guesser, not the server's hashing.
        yield* throttle.check(Option.getOrElse(request.remoteAddress, () => "unknown"), payload.email)
        const signedIn = yield* accounts.signIn({
          email: payload.email,
          password: Redacted.make(payload.password, { label: "Password" }),
          userAgent: request.headers["user-agent"]
        }).pipe(Effect.catchTags({
          InvalidCredentials: invalidCredentialsProblem,
          Conflict: conflictProblem,
          Unavailable: unavailableProblem
        }))
        return { user: toUserView(signedIn.user), session: toSessionTokens(signedIn.session) }
      }))
      .handle("refresh", Effect.fn("Auth.refresh")(function*({ payload }) {
        const issued = yield* accounts.refresh(Redacted.make(payload.refreshToken, { label: "refresh token" })).pipe(
          Effect.catchTags({ SessionRejected: sessionRejectedProblem, Unavailable: unavailableProblem })
        )
        return { session: toSessionTokens(issued) }
      }))
      .handle("verifyEmail", Effect.fn("Auth.verifyEmail")(function*({ payload }) {
        yield* mailThrottle.redeem(yield* clientAddress)
        yield* verification.verify(Redacted.make(payload.token, { label: "verification token" })).pipe(
          Effect.catchTags({ InvalidToken: invalidTokenProblem, Unavailable: unavailableProblem })
        )
      }))
      .handle("requestPasswordReset", Effect.fn("Auth.requestPasswordReset")(function*({ payload }) {
        // Counted for every email, known or not, before anything is looked up.
        yield* mailThrottle.reset(yield* clientAddress, payload.email)
        yield* passwordReset.request(payload.email).pipe(Effect.catchTag("Unavailable", unavailableProblem))
      }))
      .handle("confirmPasswordReset", Effect.fn("Auth.confirmPasswordReset")(function*({ payload }) {
        yield* mailThrottle.redeem(yield* clientAddress)
        yield* passwordReset.confirm(
          Redacted.make(payload.token, { label: "password reset token" }),
          Redacted.make(payload.password, { label: "Password" })
        ).pipe(Effect.catchTags({ InvalidToken: invalidTokenProblem, InvalidInput: invalidInputProblem, Unavailable: unavailableProblem }))
      }))
  })
)

/** Handlers of `/api/auth` with an access token: the session itself and the user's other sessions. */
export const AuthSessionHandlers = HttpApiBuilder.group(
  Api,
  "authSession",
  Effect.fn("AuthSessionHandlers.make")(function*(handlers) {
    const accounts = yield* Accounts
    const verification = yield* EmailVerification
    const mailThrottle = yield* AccountMailThrottle
    return handlers
      .handle("signOut", Effect.fn("Auth.signOut")(function*() {
        const session = yield* CurrentSession
        yield* accounts.signOut(session.id).pipe(Effect.catchTag("Unavailable", unavailableProblem))
      }))
      .handle("getSession", Effect.fn("Auth.getSession")(function*() {
        const session = yield* CurrentSession
        const user = yield* accounts.current(session).pipe(
          Effect.catchTags({ SessionRejected: sessionRejectedProblem, Unavailable: unavailableProblem })
        )
        return {
          user: toUserView(user),
          session: {
            id: session.id,
            expiresAt: DateTime.formatIso(session.refreshExpiresAt),
            accessTokenExpiresAt: DateTime.formatIso(session.accessExpiresAt)
          },
          activeWorkspaceId: session.activeWorkspaceId
        }
      }))
      .handle("resendVerification", Effect.fn("Auth.resendVerification")(function*() {
        const session = yield* CurrentSession
        yield* mailThrottle.resend(yield* clientAddress, session.userId)
        yield* verification.resend(session.userId).pipe(Effect.catchTags({
          EmailAlreadyVerified: () => Effect.fail(new EmailAlreadyVerifiedProblem({})),
          SessionRejected: sessionRejectedProblem,
          Unavailable: unavailableProblem
        }))
      }))
      .handle("listSessions", Effect.fn("Auth.listSessions")(function*() {
        const session = yield* CurrentSession
        const sessions = yield* accounts.listSessions(session).pipe(Effect.catchTag("Unavailable", unavailableProblem))
        return { data: sessions.map(toSessionSummaryView), nextCursor: null }
      }))
      .handle("revokeSession", Effect.fn("Auth.revokeSession")(function*({ params }) {
        const session = yield* CurrentSession
        yield* accounts.revokeSession(session.userId, params.id).pipe(
          Effect.catchTags({ NotFound: notFoundProblem, Unavailable: unavailableProblem })
        )
      }))
  })
)
