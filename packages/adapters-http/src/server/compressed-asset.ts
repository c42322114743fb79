import { createHash } from "node:crypto"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { Effect } from "effect"

/** How long a client may keep a response: revalidate each time (with its ETag), or keep for a year (hashed URLs). */
export type CachePolicy = "revalidate" | "immutable"

const cacheControl: Record<CachePolicy, string> = {
  revalidate: "public, no-cache",
  immutable: "public, max-age=31536000, immutable"
}

interface Representation {
  readonly body: Uint8Array
  readonly etag: string
  readonly encoding: "br" | "gzip" | undefined
}

/** A static body served brotli- or gzip-compressed as the client accepts, with a strong ETag per representation. */
export interface CompressedAsset {
  readonly respond: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
}

const accepts = (header: string | undefined, encoding: string) =>
  (header ?? "").split(",").some((part) => {
    const [name, ...parameters] = part.trim().split(";")
    const refused = parameters.some((parameter) => /^\s*q\s*=\s*0(?:\.0*)?\s*$/.test(parameter))
    return name?.trim().toLowerCase() === encoding && !refused
  })

const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined && (ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))

/**
 * Serves `content` (made on first use: compression of the 3 MB docs script costs a few hundred milliseconds, which
 * only a docs reader should pay) with `Content-Encoding` negotiated from `Accept-Encoding`, `Vary`, an ETag answered
 * with 304 on `If-None-Match`, and the cache policy.
 */
export const compressedAsset = (
  contentType: string,
  policy: CachePolicy,
  content: () => string,
  extraHeaders: Readonly<Record<string, string>> = {}
): CompressedAsset => {
  let made: { readonly hash: string; readonly identity: Representation; readonly br: Representation; readonly gzip: Representation } | undefined
  const make = () => {
    if (made !== undefined) return made
    const body = new TextEncoder().encode(content())
    const hash = createHash("sha256").update(body).digest("base64url").slice(0, 16)
    made = {
      hash,
      identity: { body, etag: `"${hash}"`, encoding: undefined },
      br: {
        body: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
        etag: `"${hash}-br"`,
        encoding: "br"
      },
      gzip: { body: gzipSync(body, { level: 6 }), etag: `"${hash}-gz"`, encoding: "gzip" }
    }
    return made
  }
  return {
    respond: Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const variants = make()
      const acceptEncoding = request.headers["accept-encoding"]
      const chosen = accepts(acceptEncoding, "br") ? variants.br : accepts(acceptEncoding, "gzip") ? variants.gzip : variants.identity
      const headers: Record<string, string> = { ...extraHeaders, etag: chosen.etag, vary: "accept-encoding", "cache-control": cacheControl[policy] }
      if (chosen.encoding !== undefined) headers["content-encoding"] = chosen.encoding
      if (matches(request.headers["if-none-match"], chosen.etag)) return HttpServerResponse.empty({ status: 304, headers })
      return HttpServerResponse.uint8Array(chosen.body, { contentType, headers })
    })
  }
}
