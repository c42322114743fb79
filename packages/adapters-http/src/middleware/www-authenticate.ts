import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"

/** The realm every challenge names. */
export const realm = "atrium"

/** Adds a `WWW-Authenticate` header to whatever response the request ends with (RFC 6750 §3). */
export const challenge = (value: string) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "www-authenticate", value))
  )

/** The challenge of a 401: missing credentials carry no error attribute, every other refusal `invalid_token`. */
export const unauthenticatedChallenge = (code: string) =>
  code === "missing_credentials"
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="invalid_token"`

/** The challenge of a 403 for a key that lacks `scope`. */
export const insufficientScopeChallenge = (scope: string) =>
  `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"`
