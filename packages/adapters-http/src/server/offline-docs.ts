import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import type { HttpApi, HttpApiGroup } from "effect/http-api"
import { contractDocuments, openApiDocument } from "@atrium/client"
import { problemCatalog, problemsPath } from "@atrium/client"
import { compressedAsset } from "./compressed-asset.ts"
import { docsAccessibilityScript, docsContrastCss } from "./docs-accessibility.ts"
import type { KnownRoute } from "./route-table.ts"

/** Where the docs page is served. */
const docsPagePath = "/api/docs"
const assetsPath = "/api/docs/assets"

// The bundled Scalar script names CDN URLs it never loads (an unused `cdn` option default, a comment): blanked, so
// nothing served even names a CDN.
const cdnUrl = /https?:\/\/(?:cdn\.|[a-z0-9.-]*(?:jsdelivr|unpkg))[^\s"'`)]*/g

const effectRoot = dirname(createRequire(import.meta.url).resolve("effect/package.json"))
const effectVersion = (() => {
  const manifest: unknown = JSON.parse(readFileSync(join(effectRoot, "package.json"), "utf8"))
  const version = typeof manifest === "object" && manifest !== null && "version" in manifest ? manifest.version : undefined
  return typeof version === "string" ? version : "0"
})()

// The script changes only with the installed effect package: its version names the URL, so it can be cached for a year.
const scalarScriptPath: `/${string}` = `${assetsPath}/scalar-effect-${effectVersion}.js`
const accessibilityScriptPath = `${assetsPath}/accessibility.js`

// Effect bundles Scalar's standalone script as a string module it does not export; it is read from the installed package.
const scalarScript = () => {
  const module = readFileSync(join(effectRoot, "dist/http-api/internal/httpApiScalar.js"), "utf8")
  const start = module.indexOf("export const javascript=")
  const literal = module.slice(start + "export const javascript=".length).trim().replace(/;?\s*(?:\/\/# sourceMappingURL=.*)?$/, "")
  const parsed: unknown = JSON.parse(literal)
  return typeof parsed === "string" ? parsed.replace(cdnUrl, "") : ""
}

// The reference runs under a policy that names no other origin: fonts, scripts, requests and frames come from here only.
// Scalar sets inline styles (Vue bindings, its injected stylesheet), hence `'unsafe-inline'` for styles alone; the one
// inline script is allowed by its hash.
const securityHeaders = (inlineScript: string | undefined) => ({
  "content-security-policy": [
    "default-src 'self'",
    `script-src 'self'${inlineScript === undefined ? "" : ` 'sha256-${createHash("sha256").update(inlineScript).digest("base64")}'`}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
})

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
// JSON inside a <script> element: no `</script>` or line terminators can end it early.
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

const page = (title: string, head: string, body: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    ${head}
  </head>
  <body>
${body}
  </body>
</html>
`

// Inline code spans of the catalog's prose, rendered as <code>.
const prose = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>")

const errorsPage = () =>
  page(
    "Atrium API errors",
    "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}section{border-top:1px solid #ddd;padding:.5rem 0}code{background:#f4f4f4;padding:0 .2em}:target{background:#fff8d6}</style>",
    [
      "<h1>Errors</h1>",
      `<p>Every failure is an RFC 9457 <code>application/problem+json</code> body whose <code>type</code> links here, with a stable <code>code</code> and the <code>requestId</code>. <a href="${docsPagePath}">Back to the API reference</a>.</p>`,
      ...problemCatalog.map((problem) =>
        `<section id="${problem.code}"><h2><code>${problem.code}</code> — ${problem.status} ${escapeHtml(problem.title)}</h2><p>${prose(problem.when)}</p></section>`
      )
    ].join("\n")
  )

/** The routes the docs layer serves (for the 404/405 route table). */
export const docsRoutes: ReadonlyArray<KnownRoute> = [
  ...contractDocuments.map((document) => ({ method: "GET", path: document.path })),
  { method: "GET", path: docsPagePath },
  { method: "GET", path: problemsPath },
  { method: "GET", path: scalarScriptPath },
  { method: "GET", path: accessibilityScriptPath }
]

/**
 * The contract's documents (`/api/v1/openapi`, `/api/mobile/openapi`), the docs page rendering both with Scalar
 * (served from here: works offline, names no CDN), and the error reference the problems' `type` URIs point at. Every
 * body is compressed (br, gzip) with an ETag; the Scalar script has a hashed URL and is cached for a year.
 */
export const docsLayer = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) => {
  const script = compressedAsset("text/javascript; charset=utf-8", "immutable", scalarScript)
  const documents = contractDocuments.map((document) => ({
    path: document.path,
    asset: compressedAsset("application/json", "revalidate", () => JSON.stringify(openApiDocument(api, document)))
  }))
  const configuration = () => ({
    sources: contractDocuments.map((document) => ({ title: document.title, slug: document.slug, url: document.path })),
    // Scalar's default fonts come from fonts.scalar.com; its developer toolbar (shown on localhost) offers uploads to
    // scalar.com. Neither belongs on a page that works offline.
    withDefaultFonts: false,
    showDeveloperTools: "never",
    telemetry: false,
    customCss: docsContrastCss,
    hideClientButton: false,
    authentication: { preferredSecurityScheme: "bearer" }
  })
  // Not `api-reference`: the standalone script mounts an empty reference of its own on an element with that id (the
  // never-ending skeleton above the real one, "Document  not found in configList", and its default fonts).
  const boot = () => `window.Scalar.createApiReference(document.getElementById("reference"), ${scriptJson(configuration())})`
  const docsPage = compressedAsset("text/html; charset=utf-8", "revalidate", () =>
    page(
      "Atrium API reference",
      `<meta name="description" content="Atrium API reference: the public v1 interface and the session interface" />`,
      [
        `    <div id="reference"></div>`,
        `    <script src="${scalarScriptPath}"></script>`,
        `    <script src="${accessibilityScriptPath}"></script>`,
        `    <script>${boot()}</script>`
      ].join("\n")
    ), securityHeaders(boot()))
  const accessibility = compressedAsset("text/javascript; charset=utf-8", "revalidate", () => docsAccessibilityScript)
  const errors = compressedAsset("text/html; charset=utf-8", "revalidate", errorsPage, securityHeaders(undefined))
  return HttpRouter.use(Effect.fnUntraced(function*(router) {
    for (const document of documents) yield* router.add("GET", document.path, document.asset.respond)
    yield* router.add("GET", docsPagePath, docsPage.respond)
    yield* router.add("GET", problemsPath, errors.respond)
    yield* router.add("GET", scalarScriptPath, script.respond)
    yield* router.add("GET", accessibilityScriptPath, accessibility.respond)
  }))
}
