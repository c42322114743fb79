import { Accounts, EmailVerification, PasswordReset } from "@atrium/domain"
import { DateTime, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { CurrentSession } from "@atrium/client"
import { clientAddress } from "../client-address.ts"
import { leanGroup } from "../lean-group.ts"
import { Throttles } from "../throttles.ts"
import { challengeFor } from "../www-authenticate.ts"
import { toSessionSummaryView, toSessionTokens, toUserView } from "./identity-views.ts"
import { toWorkspaceView } from "./views.ts"

/**
 * Handlers of `/api/auth` before a session: sign-up, sign-in, refresh and the mailed links
 * (verify, reset), each throttled before any work.
 */
export const AuthHandlers = Layer.unwrap(Effect.gen(function*() {
    const accounts = yield* Accounts
    const throttles = yield* Throttles
    const verification = yield* EmailVerification
    const passwordReset = yield* PasswordReset
    return leanGroup(HttpApiBuilder.group(Api, "auth", (handlers) => handlers
      .handle("signUp", Effect.fn("Auth.signUp")(function*({ payload }) {
        const request = yield* HttpServerRequest.HttpServerRequest
        yield* throttles.signUp(clientAddress(request), payload.email)
        const signedUp = yield* accounts.signUp({
          email: payload.email,
          password: Redacted.make(payload.password, { label: "Password" }),
          name: payload.name,
          userAgent: request.headers["user-agent"]
        })
        return { user: toUserView(signedUp.user), workspace: toWorkspaceView(signedUp.workspace), session: toSessionTokens(signedUp.session) }
      }))
      .handle("signIn", Effect.fn("Auth.signIn")(function*({ payload }) {
        const request = yield* HttpServerRequest.HttpServerRequest
        // Counted before the password is checked: a refused guess costs the guesser, not the server's hashing.
        yield* throttles.signIn(clientAddress(request), payload.email)
        const signedIn = yield* accounts.signIn({
          email: payload.email,
          password: Redacted.make(payload.password, { label: "Password" }),
          userAgent: request.headers["user-agent"]
        }).pipe(Effect.tapError(challengeFor))
        return { user: toUserView(signedIn.user), session: toSessionTokens(signedIn.session) }
      }))
      .handle("refresh", Effect.fn("Auth.refresh")(function*({ payload }) {
        yield* throttles.refresh(clientAddress(yield* HttpServerRequest.HttpServerRequest))
        const issued = yield* accounts.refresh(Redacted.make(payload.refreshToken, { label: "refresh token" })).pipe(
          Effect.tapError(challengeFor)
        )
        return { session: toSessionTokens(issued) }
      }))
      .handle("verifyEmail", Effect.fn("Auth.verifyEmail")(function*({ payload }) {
        yield* throttles.redeemLink(clientAddress(yield* HttpServerRequest.HttpServerRequest))
        yield* verification.verify(Redacted.make(payload.token, { label: "verification token" }))
      }))
      .handle("requestPasswordReset", Effect.fn("Auth.requestPasswordReset")(function*({ payload }) {
        // Counted for every email, known or not, before anything is looked up.
        yield* throttles.passwordReset(clientAddress(yield* HttpServerRequest.HttpServerRequest), payload.email)
        yield* passwordReset.request(payload.email)
      }))
      .handle("confirmPasswordReset", Effect.fn("Auth.confirmPasswordReset")(function*({ payload }) {
        yield* throttles.redeemLink(clientAddress(yield* HttpServerRequest.HttpServerRequest))
        yield* passwordReset.confirm(
          Redacted.make(payload.token, { label: "password reset token" }),
          Redacted.make(payload.password, { label: "Password" })
        )
      }))))
}))

/** Handlers of `/api/auth` with an access token: the session itself, the user's other sessions, and a new verification link. */
export const AuthSessionHandlers = Layer.unwrap(Effect.gen(function*() {
    const accounts = yield* Accounts
    const verification = yield* EmailVerification
    const throttles = yield* Throttles
    return leanGroup(HttpApiBuilder.group(Api, "authSession", (handlers) => handlers
      .handle("signOut", Effect.fn("Auth.signOut")(function*() {
        const session = yield* CurrentSession
        yield* accounts.signOut(session.id)
      }))
      .handle("getSession", Effect.fn("Auth.getSession")(function*() {
        const session = yield* CurrentSession
        const user = yield* accounts.current(session).pipe(Effect.tapError(challengeFor))
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
        yield* throttles.resendVerification(clientAddress(yield* HttpServerRequest.HttpServerRequest), session.userId)
        yield* verification.resend(session.userId).pipe(Effect.tapError(challengeFor))
      }))
      .handle("listSessions", Effect.fn("Auth.listSessions")(function*() {
        const session = yield* CurrentSession
        const sessions = yield* accounts.listSessions(session)
        return { data: sessions.map(toSessionSummaryView), nextCursor: null }
      }))
      .handle("revokeSession", Effect.fn("Auth.revokeSession")(function*({ params }) {
        const session = yield* CurrentSession
        yield* accounts.revokeSession(session.userId, params.id)
      }))))
}))
