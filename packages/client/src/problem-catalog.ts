/** One error code of the contract: its status, title and what a client does about it. */
export interface ProblemCode {
  readonly code: string
  readonly status: number
  readonly title: string
  readonly when: string
}

/** Where the reference of the error codes is served; each code is a section (`#<code>`) of it. */
export const problemsPath = "/api/docs/errors"

/** The `type` URI of a problem code: its section of the error reference under `/api/docs`. */
export const problemType = (code: string) => `${problemsPath}#${code}`

/** Every error code clients may see, in the order the docs list them. */
export const problemCatalog: ReadonlyArray<ProblemCode> = [
  { code: "invalid_request", status: 400, title: "Invalid request", when: "The body, query, path or a header fails its schema, or a business rule refuses the input; `errors` names each failed check as `{ path, message }`. Fix the request; do not retry it unchanged." },
  { code: "missing_credentials", status: 401, title: "Unauthenticated", when: "No `Authorization: Bearer …` header. Sent with `WWW-Authenticate: Bearer`." },
  { code: "malformed_credentials", status: 401, title: "Unauthenticated", when: "The credential is not of a kind this route takes: an API key on `/api/mobile` or `/api/auth`, a session token on `/api/v1` (except `/api/v1/ai-tasks`)." },
  { code: "invalid_api_key", status: 401, title: "Unauthenticated", when: "The API key is not known. Sent with `WWW-Authenticate: Bearer error=\"invalid_token\"`." },
  { code: "api_key_revoked", status: 401, title: "Unauthenticated", when: "The API key was revoked. Create a new one." },
  { code: "api_key_expired", status: 401, title: "Unauthenticated", when: "The API key expired (or the grace of a rolled key ended). Use its replacement." },
  { code: "session_expired", status: 401, title: "Unauthenticated", when: "The access token is past its expiry: refresh the session (`POST /api/auth/refresh`) once and retry." },
  { code: "invalid_session", status: 401, title: "Unauthenticated", when: "The session is unknown, revoked or signed out, or a used refresh token was presented: sign in again." },
  { code: "invalid_credentials", status: 401, title: "Invalid credentials", when: "The email and password do not match an account (the same answer for an unknown email)." },
  { code: "usage_cap_reached", status: 402, title: "Usage cap reached", when: "The operation would take a meter beyond its monthly cap; `meter` names it." },
  { code: "insufficient_credits", status: 402, title: "Insufficient credits", when: "The credit balance does not cover the operation's worst-case cost." },
  { code: "insufficient_scope", status: 403, title: "Insufficient scope", when: "The API key lacks `requiredScope`. Sent with `WWW-Authenticate: Bearer error=\"insufficient_scope\"`." },
  { code: "forbidden", status: 403, title: "Forbidden", when: "The member's role does not allow the action in the active workspace." },
  { code: "not_entitled", status: 403, title: "Not entitled", when: "The workspace lacks `feature`." },
  { code: "not_found", status: 404, title: "Not found", when: "No such record in the caller's workspace; another workspace's records answer the same." },
  { code: "route_not_found", status: 404, title: "Not found", when: "No route matches the path: check the URL (and the API version prefix)." },
  { code: "method_not_allowed", status: 405, title: "Method not allowed", when: "The path exists but not with this method; `Allow` lists the methods." },
  { code: "conflict", status: 409, title: "Conflict", when: "The change collides with the current state (a limit, a duplicate, a disabled endpoint)." },
  { code: "email_taken", status: 409, title: "Email taken", when: "An account with this email exists: sign in instead." },
  { code: "idempotency_key_reused", status: 409, title: "Idempotency key reused", when: "The `Idempotency-Key` was used within 24 h for a different request." },
  { code: "precondition_failed", status: 412, title: "Precondition failed", when: "`If-Match` does not name the current version; `currentEtag` names it. Read, merge, retry." },
  { code: "payload_too_large", status: 413, title: "Payload too large", when: "The body is over 1 MiB." },
  { code: "unsupported_media_type", status: 415, title: "Unsupported media type", when: "Send bodies as `application/json`." },
  { code: "precondition_required", status: 428, title: "Precondition required", when: "The write needs an `If-Match` header." },
  { code: "rate_limited", status: 429, title: "Too many requests", when: "Too many requests in the window; wait `Retry-After` seconds. `RateLimit` and `RateLimit-Policy` headers tell the budget." },
  { code: "internal_error", status: 500, title: "Internal error", when: "Something broke on our side; no detail is disclosed. Quote the `requestId` when reporting it." },
  { code: "unavailable", status: 503, title: "Service unavailable", when: "A dependency (the database) is down: retry after `Retry-After` seconds with backoff. Never a 401: a failed lookup proves nothing." }
]
