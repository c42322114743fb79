import { createConfig, lintFromString } from "@redocly/openapi-core"
import spectralCore from "@stoplight/spectral-core"
import spectralRulesets from "@stoplight/spectral-rulesets"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { HttpApi } from "effect/http-api"
import { Api, contractDocuments, problemCatalog, requestExamples, unpublishedPrefixes } from "@atrium/client"
import { AppUnderTest, seedKey, send, sendJson } from "./harness.ts"
import { isRecord, member } from "./json.ts"

const methods = ["get", "put", "post", "delete", "patch"]
const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}")

// Every operation of a served document: method, path and the operation object.
const operationsOf = (document: unknown) =>
  Object.entries(Object(member(document, "paths"))).flatMap(([path, item]) =>
    methods.flatMap((method) => {
      const operation = member(item, method)
      return isRecord(operation) ? [{ method, path, operation }] : []
    }))

const fetchDocuments = Effect.gen(function*() {
  const out: Array<{ readonly slug: string; readonly prefixes: ReadonlyArray<string>; readonly text: string; readonly body: Record<string, unknown> }> = []
  for (const document of contractDocuments) {
    const reply = yield* send("GET", document.path)
    assert.strictEqual(reply.status, 200, document.path)
    out.push({ slug: document.slug, prefixes: document.prefixes, text: reply.text, body: reply.body })
  }
  return out
})

// Rules that cannot pass without a breaking change, each with why it is accepted.
const acceptedLintFindings: ReadonlyArray<{ readonly rule: string; readonly includes: string; readonly why: string }> = [{
  rule: "no-ambiguous-paths",
  includes: "/api/mobile/webhooks/deliveries/{id}",
  why: "`/api/mobile/webhooks/deliveries/…` shares a shape with `/api/mobile/webhooks/{id}/…`; static segments win in the " +
    "router and endpoint ids are `whe_…`, so nothing is ambiguous in practice, and moving the paths would break clients"
}]

describe("the contract's two OpenAPI documents", () => {
  it.effect("v1 holds /api/v1 only, mobile /api/auth and /api/mobile; every route of Api is in exactly one", () =>
    Effect.gen(function*() {
      const documents = yield* fetchDocuments
      const documented = new Map<string, string>()
      for (const document of documents) {
        for (const { method, path } of operationsOf(document.body)) {
          assert.isTrue(document.prefixes.some((prefix) => path.startsWith(prefix)), `${document.slug}: ${path}`)
          documented.set(`${method.toUpperCase()} ${path}`, document.slug)
        }
      }
      HttpApi.reflect(Api, {
        onGroup: () => {},
        onEndpoint: ({ endpoint }) => {
          const key = `${endpoint.method} ${toOpenApiPath(endpoint.path)}`
          if (unpublishedPrefixes.some((prefix) => endpoint.path.startsWith(prefix))) assert.isFalse(documented.has(key), key)
          else assert.isTrue(documented.has(key), `${key} is in no document`)
        }
      })
      assert.strictEqual(documented.get("GET /api/v1/workspaces/current"), "v1")
      assert.strictEqual(documented.get("POST /api/auth/sign-in"), "mobile")
      assert.strictEqual(documented.get("GET /api/mobile/organization"), "mobile")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("each has its semver version, servers, a license and the lower-case bearer scheme Scalar samples as `Authorization: Bearer`", () =>
    Effect.gen(function*() {
      const documents = yield* fetchDocuments
      const [v1, mobile] = documents
      assert.notStrictEqual(member(v1?.body, "info"), member(mobile?.body, "info"))
      for (const document of documents) {
        const info = member(document.body, "info")
        assert.match(String(member(info, "version")), /^\d+\.\d+\.\d+$/)
        assert.isString(member(member(info, "license"), "name"))
        assert.isTrue(Array.isArray(member(document.body, "servers")))
        const bearer = member(member(member(document.body, "components"), "securitySchemes"), "bearer")
        assert.deepInclude(bearer, { type: "http", scheme: "bearer" })
        // The introduction a reader sees first.
        const description = String(member(info, "description"))
        for (const heading of ["## Authentication", "## Errors", "## Pagination", "## Idempotency", "## Rate limits", "## Webhooks"]) {
          assert.include(description, heading, document.slug)
        }
        assert.include(description, "createHmac")
        assert.include(description, "hmac.compare_digest")
      }
      assert.include(String(member(member(v1?.body, "info"), "description")), "Authorization: Bearer sk_live_")
      assert.include(String(member(member(mobile?.body, "info"), "description")), "Authorization: Bearer at_")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("Redocly `recommended` and Spectral `spectral:oas` pass on both documents", () =>
    Effect.gen(function*() {
      const documents = yield* fetchDocuments
      const config = yield* Effect.promise(() => createConfig({ extends: ["recommended"] }))
      for (const document of documents) {
        const problems = yield* Effect.promise(() => lintFromString({ source: document.text, absoluteRef: `${document.slug}.openapi.json`, config }))
        const unexpected = problems.filter((problem) =>
          !acceptedLintFindings.some((accepted) => accepted.rule === problem.ruleId && problem.message.includes(accepted.includes)))
        assert.deepStrictEqual(unexpected.map((problem) => `${problem.ruleId}: ${problem.message}`), [], `Redocly on ${document.slug}`)
        const spectral = new spectralCore.Spectral()
        spectral.setRuleset(new spectralCore.Ruleset({ extends: [[spectralRulesets.oas, "recommended"]] }))
        const results = yield* Effect.promise(() => spectral.run(document.text))
        assert.deepStrictEqual(results.map((result) => `${String(result.code)}: ${result.message} at ${result.path.join(".")}`), [], `Spectral on ${document.slug}`)
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("no ±(2^53 − 1) bounds, `limit` is an integer 1–100, every 404 admits route_not_found", () =>
    Effect.gen(function*() {
      const documents = yield* fetchDocuments
      let lists = 0
      for (const document of documents) {
        assert.notInclude(document.text, "9007199254740991", document.slug)
        for (const { method, path, operation } of operationsOf(document.body)) {
          const parameters = member(operation, "parameters")
          for (const parameter of Array.isArray(parameters) ? parameters : []) {
            if (member(parameter, "name") !== "limit") continue
            lists++
            assert.deepInclude(member(parameter, "schema"), { type: "integer", minimum: 1, maximum: 100 }, `${method} ${path}`)
          }
          const notFound = member(member(operation, "responses"), "404")
          if (notFound !== undefined) assert.include(JSON.stringify(notFound), "RouteNotFoundProblem", `${method} ${path}`)
        }
        assert.include(document.text, `"route_not_found"`)
      }
      assert.isAtLeast(lists, 6)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("every request body has an example, and each decodes through its endpoint's own payload schema", () =>
    Effect.gen(function*() {
      const documents = yield* fetchDocuments
      // The payload's AST as a codec needing no services: the contract's request schemas need none.
      const payloads = new Map<string, Schema.Codec<unknown, unknown>>()
      HttpApi.reflect(Api, {
        onGroup: () => {},
        onEndpoint: ({ endpoint }) => {
          const json = endpoint.payload.get("application/json")
          if (json !== undefined && json.encoding._tag !== "Stream" && "schemas" in json) {
            payloads.set(`${endpoint.method.toLowerCase()} ${toOpenApiPath(endpoint.path)}`, Schema.make<Schema.Codec<unknown, unknown>>(Schema.Union(json.schemas).ast))
          }
        }
      })
      let bodies = 0
      for (const document of documents) {
        for (const { method, path, operation } of operationsOf(document.body)) {
          const body = member(operation, "requestBody")
          if (body === undefined) continue
          bodies++
          const media = member(member(body, "content"), "application/json")
          assert.isTrue(isRecord(media) && "example" in media, `${method} ${path} has no example`)
          const schema = payloads.get(`${method} ${path}`)
          assert.isDefined(schema, `${method} ${path}`)
          if (schema === undefined) continue
          const decoded = Schema.decodeUnknownExit(schema)(member(media, "example"))
          assert.isTrue(Exit.isSuccess(decoded), `${method} ${path}: its example fails its schema`)
        }
      }
      assert.isAtLeast(bodies, Object.keys(requestExamples).length)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a problem's `type` resolves to its code's section of the error reference under /api/docs; 400s have one shape", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey({ scopes: ["write"] })
      const badBody = yield* sendJson("POST", "/api/v1/ai-tasks", key, { model: "", input: { prompt: "" } })
      const badQuery = yield* send("GET", "/api/v1/events?limit=abc", { key })
      const unreadable = yield* send("POST", "/api/v1/ai-tasks", { key, body: "{not json" })
      for (const reply of [badBody, badQuery, unreadable]) {
        assert.strictEqual(reply.status, 400, reply.text)
        assert.strictEqual(reply.body.code, "invalid_request")
        assert.strictEqual(reply.body.type, "/api/docs/errors#invalid_request")
      }
      const unknown = yield* send("GET", "/api/v1/no-such-thing", { key })
      assert.strictEqual(unknown.body.code, "route_not_found")
      const [page, section] = String(unknown.body.type).split("#")
      const reference = yield* send("GET", String(page))
      assert.strictEqual(reference.status, 200)
      assert.include(reference.headers["content-type"] ?? "", "text/html")
      assert.include(reference.text, `id="${section}"`)
      for (const problem of problemCatalog) assert.include(reference.text, `id="${problem.code}"`)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("rotate-secret takes an empty body (the default grace) as well as options", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey({ scopes: ["write"] })
      const created = yield* sendJson("POST", "/api/v1/webhook-endpoints", key, { url: "https://hooks.example.com/a" })
      assert.strictEqual(created.status, 201, created.text)
      const empty = yield* send("POST", `/api/v1/webhook-endpoints/${String(created.body.id)}/rotate-secret`, { key })
      assert.strictEqual(empty.status, 200, empty.text)
      assert.match(String(empty.body.secret), /^whsec_/)
      const withOptions = yield* sendJson("POST", `/api/v1/webhook-endpoints/${String(created.body.id)}/rotate-secret`, key, { gracePeriodSeconds: 60 })
      assert.strictEqual(withOptions.status, 200, withOptions.text)
      const unknownField = yield* sendJson("POST", `/api/v1/webhook-endpoints/${String(created.body.id)}/rotate-secret`, key, { grace: 60 })
      assert.strictEqual(unknownField.status, 400)
    }).pipe(Effect.provide(AppUnderTest())))
})

describe("the docs page", () => {
  it.effect("renders both documents with Scalar served from here, compressed, with ETags and a year-long cache on the script", () =>
    Effect.gen(function*() {
      const page = yield* send("GET", "/api/docs", { headers: { "accept-encoding": "br, gzip" } })
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.headers["content-encoding"], "br")
      assert.include(page.headers["vary"] ?? "", "accept-encoding")
      const etag = page.headers["etag"] ?? ""
      assert.match(etag, /^"[^"]+"$/)
      for (const document of contractDocuments) assert.include(page.text, document.path)
      const revalidated = yield* send("GET", "/api/docs", { headers: { "accept-encoding": "br, gzip", "if-none-match": etag } })
      assert.strictEqual(revalidated.status, 304)
      const gzip = yield* send("GET", "/api/docs", { headers: { "accept-encoding": "gzip" } })
      assert.strictEqual(gzip.headers["content-encoding"], "gzip")
      assert.notStrictEqual(gzip.headers["etag"], etag)
      const plain = yield* send("GET", "/api/docs", { headers: { "accept-encoding": "identity" } })
      assert.isUndefined(plain.headers["content-encoding"])
      const script = /<script src="([^"]+)"/.exec(page.text)?.[1] ?? ""
      assert.match(script, /^\/api\/docs\/assets\/scalar-[\w.-]+\.js$/)
      const asset = yield* send("GET", script, { headers: { "accept-encoding": "br" } })
      assert.strictEqual(asset.status, 200)
      assert.strictEqual(asset.headers["content-encoding"], "br")
      assert.include(asset.headers["cache-control"] ?? "", "max-age=31536000")
      assert.include(asset.headers["cache-control"] ?? "", "immutable")
      assert.include(asset.text, "createApiReference")
      for (const host of ["https://cdn", "unpkg", "jsdelivr"]) assert.notInclude(asset.text, host)
      const document = yield* send("GET", "/api/v1/openapi", { headers: { "accept-encoding": "gzip" } })
      assert.strictEqual(document.headers["content-encoding"], "gzip")
      assert.strictEqual(document.body.openapi, "3.1.0")
    }).pipe(Effect.provide(AppUnderTest())))
})
