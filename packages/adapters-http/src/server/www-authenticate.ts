import { ApiKeyRejected, InsufficientScope, InvalidCredentials, SessionRejected } from "@atrium/domain"
import { Effect } from "effect"
import { respondWith } from "./request-facts.ts"

/** The realm every challenge names. */
export const realm = "atrium"

/** Adds a `WWW-Authenticate` header to whatever response the request ends with (RFC 6750 §3). */
export const challenge = (value: string) => respondWith({ "www-authenticate": value })

/** The challenge of a 401: missing credentials carry no error attribute, every other refusal `invalid_token`. */
const unauthenticatedChallenge = (code: string) =>
  code === "missing_credentials"
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="invalid_token"`

/** The challenge of a 403 for a key that lacks `scope`. */
const insufficientScopeChallenge = (scope: string) =>
  `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"`

/**
 * The challenge a failure answers with, if any: refused credentials (`invalid_token`), a wrong email or password (none
 * named: none was sent), a missing scope. Outages (503) and role refusals carry none. For `Effect.tapError`.
 */
export const challengeFor = (error: unknown): Effect.Effect<void> => {
  if (error instanceof ApiKeyRejected || error instanceof SessionRejected) return challenge(unauthenticatedChallenge(error.code))
  if (error instanceof InvalidCredentials) return challenge(`Bearer realm="${realm}"`)
  if (error instanceof InsufficientScope) return challenge(insufficientScopeChallenge(error.requiredScope))
  return Effect.void
}
