import { looksLikeApiKey, type SessionRejected } from "@atrium/domain"
import { Effect, Redacted } from "effect"
import { ForbiddenProblem, InvalidCredentialsProblem, SessionUnauthenticatedProblem } from "../api/identity-problems.ts"
import { isMalformedMarker } from "./presented-credential.ts"
import { challenge, realm, unauthenticatedChallenge } from "./www-authenticate.ts"

type SessionCode = SessionUnauthenticatedProblem["code"]

// Each code tells the client what to do next.
const details: { readonly [C in SessionCode]: string } = {
  missing_credentials: "Send a member session access token as Authorization: Bearer <token>",
  malformed_credentials: "Send a member session access token (at_…) as Authorization: Bearer <token>; API keys are not accepted here",
  session_expired: "The access token has expired; refresh the session and retry",
  invalid_session: "The session has ended; sign in again"
}

/** Refuses a session credential with its 401 problem and `WWW-Authenticate` challenge. */
export const refuseSession = (code: SessionCode) =>
  challenge(unauthenticatedChallenge(code)).pipe(
    Effect.andThen(Effect.fail(new SessionUnauthenticatedProblem({ code, detail: details[code] })))
  )

/** A domain `SessionRejected` as its 401 problem. */
export const sessionRejectedProblem = (error: SessionRejected) => refuseSession(error.code)

/** The wrong email or password, as 401 `invalid_credentials` with a challenge naming no token (none was sent). */
export const invalidCredentialsProblem = () =>
  challenge(`Bearer realm="${realm}"`).pipe(
    Effect.andThen(Effect.fail(new InvalidCredentialsProblem({ detail: "The email or password is wrong" })))
  )

/** A role or membership refusal of the domain as 403 `forbidden`, with the policy's reason. */
export const forbiddenProblem = (error: { readonly detail: string }) => Effect.fail(new ForbiddenProblem({ detail: error.detail }))

/**
 * Refuses, before any lookup, what cannot be a session token: nothing (401 `missing_credentials`), a non-Bearer header
 * or an API key (401 `malformed_credentials`: the client is misconfigured, signing in again would not help).
 */
export const screenSessionCredential = (presented: Redacted.Redacted<string>) => {
  const text = Redacted.value(presented)
  if (text.length === 0) return refuseSession("missing_credentials")
  if (isMalformedMarker(presented) || looksLikeApiKey(text)) return refuseSession("malformed_credentials")
  return Effect.succeed(presented)
}
