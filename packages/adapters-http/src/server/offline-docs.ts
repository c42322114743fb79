import { Effect, Layer } from "effect"
import { HttpBody, HttpRouter, HttpServerResponse } from "effect/http"
import { type HttpApi, type HttpApiGroup, HttpApiScalar } from "effect/http-api"

// The bundled Scalar script names CDN URLs it never loads (an unused `cdn` option default, a comment).
// The page must not even name a CDN, so they are blanked once per rendered page.
const cdnUrl = /https?:\/\/(?:cdn\.|[a-z0-9.-]*(?:jsdelivr|unpkg))[^\s"'`)]*/g

const rewritten = new WeakMap<HttpServerResponse.HttpServerResponse, HttpServerResponse.HttpServerResponse>()

const withoutCdn = (response: HttpServerResponse.HttpServerResponse) => {
  const cached = rewritten.get(response)
  if (cached !== undefined) return cached
  const body = response.body
  if (body._tag !== "Uint8Array") return response
  const html = body.text ?? new TextDecoder().decode(body.body)
  const out = HttpServerResponse.setBody(response, HttpBody.text(html.replace(cdnUrl, ""), body.contentType))
  rewritten.set(response, out)
  return out
}

const OfflineOnly = HttpRouter.middleware((httpEffect) => Effect.map(httpEffect, withoutCdn)).layer

/** The Scalar reference page with its script inlined (works offline) and no CDN named anywhere. */
export const docsLayer = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  path: `/${string}`
) =>
  HttpApiScalar.layer(api, { path, scalar: { withDefaultFonts: false } }).pipe(Layer.provide(OfflineOnly))
