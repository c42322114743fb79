import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { KnownRoute } from "../route-table.ts"
import { type ConsoleAsset, consoleDirectory, loadConsoleAssets } from "./console-assets.ts"

/** Where the Settings → Developers console is served. */
const consolePath = "/settings/developers"
const assetsPath = `${consolePath}/assets`

/** The pages mailed links open (verify an address, reset a password, accept an invitation); the token is in the fragment. */
const accountPagePaths = ["/verify-email", "/reset-password", "/accept-invitation"] as const

/** The console's routes, for the envelope's 404/405 table. */
export const consoleRoutes: ReadonlyArray<KnownRoute> = [
  { method: "GET", path: consolePath },
  { method: "GET", path: `${assetsPath}/:name` },
  ...accountPagePaths.map((path): KnownRoute => ({ method: "GET", path }))
]

// Scripts and styles only from this origin, no inline code, no framing, no plugins, no <base> games.
const securityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; " +
    "form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

// Revalidated on every use (the URLs carry no version), answered 304 while the ETag still matches.
const serve = (asset: ConsoleAsset) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const headers = { ...securityHeaders, "cache-control": "no-cache", etag: asset.etag }
    const ifNoneMatch = request.headers["if-none-match"]
    if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === asset.etag)) {
      return HttpServerResponse.empty({ status: 304, headers })
    }
    return HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers })
  })

const notFound = HttpServerResponse.empty({ status: 404 })

/** `GET /settings/developers` and its assets, read from the package once when the layer is built. */
export const ConsoleLayer = Layer.unwrap(Effect.gen(function*() {
  const assets = yield* loadConsoleAssets(yield* consoleDirectory)
  const page = assets.get("index.html")
  const accountPage = assets.get("account.html")
  return HttpRouter.addAll([
    HttpRouter.route("GET", consolePath, page === undefined ? Effect.succeed(notFound) : serve(page)),
    ...accountPagePaths.map((path) => HttpRouter.route("GET", path, accountPage === undefined ? Effect.succeed(notFound) : serve(accountPage))),
    HttpRouter.route("GET", `${assetsPath}/:name`, Effect.flatMap(HttpRouter.params, (params) => {
      const asset = params.name === undefined || params.name.endsWith(".html") ? undefined : assets.get(params.name)
      return asset === undefined ? Effect.succeed(notFound) : serve(asset)
    }))
  ])
}))
