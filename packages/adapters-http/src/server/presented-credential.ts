import { InvalidInput, looksLikeApiKey } from "@atrium/domain"
import { Context, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"

// `Authorization: Basic …` and the like: a header that is there but carries no Bearer credential.
const malformed = Redacted.make("\u0000malformed")

const credentialInUrl = new InvalidInput({
  detail: "Credentials must not be sent in the URL; use the Authorization: Bearer header"
})
// Which of two credentials would count is a guess; refuse rather than pick one.
const twoCredentials = new InvalidInput({ detail: "Send exactly one Authorization header" })

// Parameter names clients use for bearer tokens in URLs (RFC 6750 §2.3) and the common alternative.
const credentialParams: ReadonlySet<string> = new Set(["access_token", "api_key", "apikey", "api-key"])

/** Whether a query string carries an API key: URLs end up in logs, histories and referrers, so such keys are refused. */
const queryCarriesApiKey = (query: Readonly<Record<string, string | ReadonlyArray<string>>>): boolean => {
  for (const name in query) {
    if (credentialParams.has(name.toLowerCase()) || looksLikeApiKey(name)) return true
    const value = query[name]
    if (typeof value === "string" ? looksLikeApiKey(value) : value !== undefined && value.some(looksLikeApiKey)) return true
  }
  return false
}

// Node keeps only the first of repeated `Authorization` headers in `headers`; the raw list still has them all.
const rawHeadersOf = (source: object): ReadonlyArray<unknown> | undefined =>
  "rawHeaders" in source && Array.isArray(source.rawHeaders) ? source.rawHeaders : undefined

/** How many `Authorization` headers the request carried (Node's raw list when there is one, else the merged headers). */
const authorizationHeaderCount = (request: HttpServerRequest.HttpServerRequest): number => {
  const raw = rawHeadersOf(request.source)
  if (raw === undefined) return request.headers.authorization === undefined ? 0 : 1
  let count = 0
  // Names and values alternate in the raw list.
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]
    if (typeof name === "string" && name.length === 13 && name.toLowerCase() === "authorization") count++
  }
  return count
}

/**
 * The credential of an `Authorization: Bearer <token>` header, "" when absent or of another scheme: schemes are
 * case-insensitive and the credential follows one or more spaces (RFC 9110 §11.1), as Effect's bearer security reads it.
 */
const bearerCredential = (header: string | undefined): string => {
  if (header === undefined || header.length <= 6 || header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== "bearer") return ""
  let start = 7
  while (header.charCodeAt(start) === 32) start++
  return header.slice(start)
}

/**
 * The bearer credential of the request whose context this is ("" when absent, a marker when not Bearer), or why it is
 * refused before any lookup: it is in the URL, or the request carries more than one `Authorization` header.
 */
export const presented = (context: Context.Context<never>): Redacted.Redacted<string> | InvalidInput => {
  if (queryCarriesApiKey(Context.getUnsafe(context, HttpServerRequest.ParsedSearchParams))) return credentialInUrl
  const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
  if (authorizationHeaderCount(request) > 1) return twoCredentials
  const header = request.headers.authorization
  const credential = bearerCredential(header)
  return credential.length === 0 && header !== undefined && header.length > 0 ? malformed : Redacted.make(credential)
}

/** What is wrong with a presented credential before any lookup: nothing there, or not a Bearer header. */
export const screened = (token: Redacted.Redacted<string>): "missing_credentials" | "malformed_credentials" | undefined =>
  Redacted.value(token).length === 0 ? "missing_credentials" : token === malformed ? "malformed_credentials" : undefined
