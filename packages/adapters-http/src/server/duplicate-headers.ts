import type { HttpServerRequest } from "effect/http"

// Node keeps only the first of repeated `Authorization` headers in `headers`; the raw list still has them all.
const rawHeadersOf = (source: object): ReadonlyArray<unknown> | undefined =>
  "rawHeaders" in source && Array.isArray(source.rawHeaders) ? source.rawHeaders : undefined

/** How many `Authorization` headers the request carried (Node's raw list when there is one, else the merged headers). */
export const authorizationHeaderCount = (request: HttpServerRequest.HttpServerRequest): number => {
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
