import { looksLikeApiKey } from "@atrium/domain"

// Parameter names clients use for bearer tokens in URLs (RFC 6750 §2.3) and the common alternative.
const credentialParams: ReadonlySet<string> = new Set(["access_token", "api_key", "apikey", "api-key"])

/** Whether a query string carries an API key: URLs end up in logs, histories and referrers, so such keys are refused. */
export const queryCarriesApiKey = (query: Readonly<Record<string, string | ReadonlyArray<string>>>): boolean => {
  for (const name in query) {
    if (credentialParams.has(name.toLowerCase()) || looksLikeApiKey(name)) return true
    const value = query[name]
    if (typeof value === "string" ? looksLikeApiKey(value) : value !== undefined && value.some(looksLikeApiKey)) return true
  }
  return false
}
