import type { Problems } from "./errors.ts"
import type { PurchaseProblems } from "./purchase-problems.ts"

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

// The codes of a record of contract problems, read from the domain errors they render.
type CodesOf<T> = { [K in keyof T]: T[K] extends { readonly Type: { readonly code: infer C extends string } } ? C : never }[keyof T]

/** The codes the envelope answers by itself: no route, wrong method, body too large, defects, other statuses. */
export const envelopeCodes = [
  "invalid_request",
  "missing_credentials",
  "forbidden",
  "not_found",
  "route_not_found",
  "method_not_allowed",
  "not_acceptable",
  "conflict",
  "precondition_failed",
  "payload_too_large",
  "unsupported_media_type",
  "upgrade_required",
  "rate_limited",
  "internal_error",
  "unavailable"
] as const
/** A code the envelope answers by itself. */
export type EnvelopeCode = typeof envelopeCodes[number]

/** Every code the server can send: the contract's problems and the envelope's own. */
export type ProblemCodeName = CodesOf<typeof Problems> | CodesOf<typeof PurchaseProblems> | EnvelopeCode

// The one list: a code without an entry (or an entry without a code) does not compile.
const entries: { readonly [C in ProblemCodeName]: Omit<ProblemCode, "code"> } = {
  invalid_request: { status: 400, title: "Invalid request", when: "The body, query, path or a header fails its schema, or a business rule refuses the input; `errors` names each failed check as `{ path, message }`. Fix the request; do not retry it unchanged." },
  invalid_token: { status: 400, title: "Invalid or expired link", when: "A verification, password-reset or invitation link is unknown, already used or expired (one answer for all three). Ask for a new link." },
  missing_credentials: { status: 401, title: "Unauthenticated", when: "No `Authorization: Bearer …` header. Sent with `WWW-Authenticate: Bearer`." },
  malformed_credentials: { status: 401, title: "Unauthenticated", when: "The credential is not of a kind this route takes: an API key on `/api/mobile` or `/api/auth`, a session token on `/api/v1` (except `/api/v1/ai-tasks`)." },
  invalid_api_key: { status: 401, title: "Unauthenticated", when: "The API key is not known. Sent with `WWW-Authenticate: Bearer error=\"invalid_token\"`." },
  api_key_revoked: { status: 401, title: "Unauthenticated", when: "The API key was revoked. Create a new one." },
  api_key_expired: { status: 401, title: "Unauthenticated", when: "The API key expired (or the grace of a rolled key ended). Use its replacement." },
  session_expired: { status: 401, title: "Unauthenticated", when: "The access token is past its expiry: refresh the session (`POST /api/auth/refresh`) once and retry." },
  invalid_session: { status: 401, title: "Unauthenticated", when: "The session is unknown, revoked or signed out, or a used refresh token was presented: sign in again." },
  invalid_credentials: { status: 401, title: "Invalid credentials", when: "The email and password do not match an account (the same answer for an unknown email)." },
  invalid_signature: { status: 401, title: "Invalid signature", when: "A store notification (`/api/store-notifications/…`) whose signature, certificate chain, bundle or environment does not verify. The store retries; nothing was recorded." },
  usage_cap_reached: { status: 402, title: "Usage cap reached", when: "The operation would take a meter beyond its monthly cap; `meter` names it." },
  insufficient_credits: { status: 402, title: "Insufficient credits", when: "The credit balance does not cover the operation's worst-case cost." },
  insufficient_scope: { status: 403, title: "Insufficient scope", when: "The API key lacks `requiredScope`. Sent with `WWW-Authenticate: Bearer error=\"insufficient_scope\"`." },
  forbidden: { status: 403, title: "Forbidden", when: "The member's role does not allow the action in the active workspace." },
  not_entitled: { status: 403, title: "Not entitled", when: "The workspace lacks `feature`." },
  not_found: { status: 404, title: "Not found", when: "No such record in the caller's workspace; another workspace's records answer the same." },
  route_not_found: { status: 404, title: "Not found", when: "No route matches the path: check the URL (and the API version prefix)." },
  method_not_allowed: { status: 405, title: "Method not allowed", when: "The path exists but not with this method; `Allow` lists the methods." },
  not_acceptable: { status: 406, title: "Not acceptable", when: "The `Accept` header names no representation this route can answer (JSON, or `application/problem+json` for errors)." },
  conflict: { status: 409, title: "Conflict", when: "The change collides with the current state (a limit, a duplicate, a disabled endpoint)." },
  email_taken: { status: 409, title: "Email taken", when: "An account with this email exists: sign in instead." },
  email_already_verified: { status: 409, title: "Email already verified", when: "The account's address is already verified: there is no link to resend." },
  domain_taken: { status: 409, title: "Domain taken", when: "Another workspace holds the hostname; `detail` names the TXT record that would claim it." },
  purchase_owned_elsewhere: { status: 409, title: "Purchase owned elsewhere", when: "The store purchase is bound to another workspace and stays there." },
  store_not_configured: { status: 409, title: "Store not configured", when: "This server does not sell through that store (`app_store` or `play_store`)." },
  idempotency_key_reused: { status: 409, title: "Idempotency key reused", when: "The `Idempotency-Key` was used within 24 h for a different request." },
  precondition_failed: { status: 412, title: "Precondition failed", when: "`If-Match` does not name the current version; `currentEtag` names it. Read, merge, retry." },
  payload_too_large: { status: 413, title: "Payload too large", when: "The body is over 1 MiB." },
  unsupported_media_type: { status: 415, title: "Unsupported media type", when: "Send bodies as `application/json`." },
  precondition_required: { status: 428, title: "Precondition required", when: "The write needs an `If-Match` header." },
  upgrade_required: { status: 426, title: "Upgrade required", when: "The request asks for a protocol upgrade this route does not offer." },
  rate_limited: { status: 429, title: "Too many requests", when: "Too many requests in the window; wait `Retry-After` seconds. `RateLimit` and `RateLimit-Policy` headers tell the budget." },
  internal_error: { status: 500, title: "Internal error", when: "Something broke on our side; no detail is disclosed. Quote the `requestId` when reporting it." },
  unavailable: { status: 503, title: "Service unavailable", when: "A dependency (the database) is down: retry after `Retry-After` seconds with backoff. Never a 401: a failed lookup proves nothing." }
}

/** The entry of a code the server sends. */
export const problemEntry = (code: ProblemCodeName): ProblemCode => ({ code, ...entries[code] })

const byCode: ReadonlyMap<string, Omit<ProblemCode, "code">> = new Map(Object.entries(entries))

/** The title of a code as the error reference lists it; every code the contract declares has one (`entries` is typed by them). */
export const problemTitle = (code: string): string => byCode.get(code)?.title ?? code

/** Every error code clients may see, in the order the docs list them (by status). */
export const problemCatalog: ReadonlyArray<ProblemCode> = Object.entries(entries)
  .map(([code, entry]) => ({ code, ...entry }))
  .sort((a, b) => a.status - b.status)
