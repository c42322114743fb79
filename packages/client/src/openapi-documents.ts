import { type HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import { introduction } from "./docs-introduction.ts"
import { problemType } from "./problem-catalog.ts"
import { requestExamples } from "./request-examples.ts"

/**
 * One published OpenAPI document of the contract: every operation whose path starts with one of `prefixes` (so a group
 * added to `Api` lands in its document by where it is mounted, never by a hand-kept list), with its own semver version.
 *
 * Versioning rule: `info.version` is semver. A fix of wording or examples bumps the patch; an additive change (a new
 * path, operation, optional field or parameter, response field, enum value in a response) bumps the minor; a breaking
 * change is not made within a major — it ships under a new prefix (`/api/v2`) with its own document. The committed
 * snapshot (`packages/adapters-http/contract/*.openapi.json`) and its test enforce this.
 */
export interface ContractDocument {
  /** Short name: the snapshot file and the docs page's source slug. */
  readonly slug: "v1" | "mobile"
  readonly title: string
  /** Semver of this document (see the versioning rule above). */
  readonly version: string
  /** Path prefixes whose operations belong to this document. */
  readonly prefixes: ReadonlyArray<string>
  /** Where the server serves the document. */
  readonly path: `/${string}`
  /** What the bearer token is on these routes. */
  readonly credential: string
  /** The token format Scalar shows. */
  readonly bearerFormat: string
  /** Prose a reader sees first. */
  readonly summary: string
}

/** The public, API-key interface: `/api/v1` only. */
export const v1Document: ContractDocument = {
  slug: "v1",
  title: "Atrium API v1",
  version: "1.6.0",
  prefixes: ["/api/v1/"],
  path: "/api/v1/openapi",
  credential: "A workspace API key (`sk_live_…` / `sk_test_…`): the request acts in the key's workspace under its " +
    "scopes. `/api/v1/ai-tasks` also takes a member session access token (`at_…`). Never put a credential in the URL.",
  bearerFormat: "sk_live_… / sk_test_… API key",
  summary: "The public interface for integrators, authenticated with a workspace API key. Within v1 changes are additive only."
}

/** The session interface of the native app and the console: `/api/auth` and `/api/mobile`. */
export const mobileDocument: ContractDocument = {
  slug: "mobile",
  title: "Atrium session API (mobile and console)",
  version: "1.5.0",
  prefixes: ["/api/auth/", "/api/mobile/"],
  path: "/api/mobile/openapi",
  credential: "A member session access token (`at_…`, from `POST /api/auth/sign-in`): the request acts in the session's " +
    "active workspace under the member's role. API keys are refused here (401 `malformed_credentials`).",
  bearerFormat: "at_… session access token",
  summary: "The interface of the native app and the developer console, authenticated with member sessions."
}

/**
 * Routes published in no document, with why: store notifications are callbacks from Apple and Google (the signature
 * is the credential), not an interface anyone builds a client for.
 */
export const unpublishedPrefixes: ReadonlyArray<string> = ["/api/store-notifications/"]

/** Both documents, in the order the docs page lists them. */
export const contractDocuments: ReadonlyArray<ContractDocument> = [v1Document, mobileDocument]

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const isObject = (value: Json | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)
const child = (value: Json | undefined, key: string): JsonObject => {
  const found = isObject(value) ? value[key] : undefined
  return isObject(found) ? found : {}
}

const parseJson = (text: string): Json => JSON.parse(text)
// A deep copy as plain JSON: the generated spec is cached by Effect and must not be mutated.
const toJsonObject = (value: unknown): JsonObject => {
  const copy = parseJson(JSON.stringify(value))
  return isObject(copy) ? copy : {}
}

const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

// `Schema.Int` documents ±(2^53 − 1) bounds: noise that docs render as example values; the real bounds stay.
const withoutSafeIntegerBounds = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds)
  if (!isObject(value)) return value
  const out: JsonObject = {}
  for (const [key, member] of Object.entries(value)) {
    if ((key === "minimum" && member === -Number.MAX_SAFE_INTEGER) || (key === "maximum" && member === Number.MAX_SAFE_INTEGER)) continue
    out[key] = withoutSafeIntegerBounds(member)
  }
  return out
}

// Query values travel as strings; a numeric one is documented as the integer clients send (`limit: 5`).
const numericText = "^[+-]?(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:[Ee][+-]?\\d+)?$"
const pageLimit: JsonObject = { type: "integer", minimum: 1, maximum: 100, default: 20 }
const documentedParameter = (parameter: JsonObject): JsonObject => {
  const schema = child(parameter, "schema")
  if (parameter["in"] !== "query" || schema["pattern"] !== numericText) return parameter
  const allOf = schema["allOf"]
  const first = Array.isArray(allOf) && isObject(allOf[0]) ? allOf[0] : {}
  const description = first["description"] ?? schema["description"]
  const integer: JsonObject = parameter["name"] === "limit" ? { ...pageLimit } : { type: "integer" }
  if (typeof description === "string") integer["description"] = description
  return { ...parameter, schema: integer }
}

const routeNotFoundName = "RouteNotFoundProblem"
const routeNotFoundSchema: JsonObject = {
  type: "object",
  description: "No route matches the path (`route_not_found`)",
  properties: {
    type: { type: "string", examples: [problemType("route_not_found")] },
    title: { type: "string" },
    status: { type: "integer", enum: [404] },
    code: { type: "string", enum: ["route_not_found"] },
    detail: { type: "string" },
    requestId: { type: "string" }
  },
  required: ["type", "title", "status", "code"]
}

// A 404 may also be `route_not_found` (a wrong prefix or an older server): the response says so.
const withRouteNotFound = (response: JsonObject): JsonObject => {
  const content = child(response, "content")
  const problem = child(content, "application/problem+json")
  const schema = problem["schema"]
  if (!isObject(schema)) return response
  const alternatives = Array.isArray(schema["anyOf"]) ? schema["anyOf"] : [schema]
  return {
    ...response,
    content: { ...content, "application/problem+json": { ...problem, schema: { anyOf: [...alternatives, { $ref: `#/components/schemas/${routeNotFoundName}` }] } } }
  }
}

// A body that may be null is one that may be left out (an empty body reads as null): documented as optional.
const optionalBody = (body: JsonObject): JsonObject => {
  const content = child(body, "content")
  const json = child(content, "application/json")
  const anyOf = child(json, "schema")["anyOf"]
  if (!Array.isArray(anyOf)) return body
  const rest = anyOf.filter((schema) => !(isObject(schema) && schema["type"] === "null" && Object.keys(schema).length === 1))
  if (rest.length === anyOf.length || rest.length === 0) return body
  const schema = rest.length === 1 ? rest[0] ?? {} : { anyOf: rest }
  return { ...body, required: false, content: { ...content, "application/json": { ...json, schema } } }
}

// The request schema's example from `requestExamples`, shown by the docs and their generated samples.
const withExample = (body: JsonObject, operationId: Json | undefined): JsonObject => {
  const content = child(body, "content")
  const json = child(content, "application/json")
  const ref = child(json, "schema")["$ref"]
  const name = typeof ref === "string" ? ref.slice(ref.lastIndexOf("/") + 1) : typeof operationId === "string" ? operationId : undefined
  if (name === undefined || !(name in requestExamples)) return body
  return { ...body, content: { ...content, "application/json": { ...json, example: toJsonObject({ value: requestExamples[name] })["value"] ?? null } } }
}

const documentedOperation = (operation: JsonObject): JsonObject => {
  const out: JsonObject = { ...operation }
  if (isObject(operation["requestBody"])) out["requestBody"] = withExample(optionalBody(operation["requestBody"]), operation["operationId"])
  if (Array.isArray(operation["parameters"])) {
    out["parameters"] = operation["parameters"].map((parameter) => isObject(parameter) ? documentedParameter(parameter) : parameter)
  }
  const responses = child(operation, "responses")
  if (isObject(responses["404"])) out["responses"] = { ...responses, "404": withRouteNotFound(responses["404"]) }
  return out
}

// Every `#/components/schemas/X` reachable from `root`, following references through the components.
const reachableSchemas = (root: Json, schemas: JsonObject): ReadonlySet<string> => {
  const found = new Set<string>()
  const pending: Array<Json> = [root]
  while (pending.length > 0) {
    const value = pending.pop()
    if (Array.isArray(value)) pending.push(...value)
    else if (isObject(value)) {
      for (const [key, member] of Object.entries(value)) {
        if (key === "$ref" && typeof member === "string" && member.startsWith("#/components/schemas/")) {
          const name = member.slice("#/components/schemas/".length)
          if (!found.has(name) && name in schemas) {
            found.add(name)
            pending.push(schemas[name] ?? null)
          }
        } else pending.push(member)
      }
    }
  }
  return found
}

/**
 * The OpenAPI 3.1 document `document` publishes for `api`: its operations only (by path prefix), the components they
 * use, its own version and introduction, a lower-case `bearer` scheme (so generated samples send
 * `Authorization: Bearer …`), servers, license, integer query parameters and 404s that admit `route_not_found`.
 */
export const openApiDocument = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  document: ContractDocument
): JsonObject => {
  const full = toJsonObject(OpenApi.fromApi(api))
  const paths: JsonObject = {}
  const tags = new Set<string>()
  for (const [path, item] of Object.entries(child(full, "paths"))) {
    if (!document.prefixes.some((prefix) => path.startsWith(prefix)) || !isObject(item)) continue
    const documented: JsonObject = {}
    for (const [key, value] of Object.entries(item)) {
      if (!methods.includes(key) || !isObject(value)) {
        documented[key] = value
        continue
      }
      const operation = documentedOperation(value)
      if (Array.isArray(operation["tags"])) for (const tag of operation["tags"]) if (typeof tag === "string") tags.add(tag)
      documented[key] = operation
    }
    paths[path] = documented
  }
  const components = child(full, "components")
  const allSchemas: JsonObject = { ...child(components, "schemas"), [routeNotFoundName]: routeNotFoundSchema }
  const used = reachableSchemas(paths, allSchemas)
  const schemas: JsonObject = {}
  for (const name of Object.keys(allSchemas).sort()) if (used.has(name)) schemas[name] = allSchemas[name] ?? null
  const fullTags = Array.isArray(full["tags"]) ? full["tags"] : []
  return toJsonObject(withoutSafeIntegerBounds({
    openapi: full["openapi"] ?? "3.1.0",
    info: {
      title: document.title,
      version: document.version,
      summary: document.summary,
      description: introduction(document),
      contact: { name: "Atrium API support" },
      license: { name: "Proprietary", identifier: "LicenseRef-Atrium-Proprietary" }
    },
    servers: [{ url: "/", description: "The server that serves this document" }],
    security: full["security"] ?? [],
    tags: fullTags.filter((tag) => isObject(tag) && typeof tag["name"] === "string" && tags.has(tag["name"])),
    paths,
    components: {
      ...components,
      schemas,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: document.bearerFormat, description: document.credential }
      }
    }
  }))
}


/** A document as its snapshot file holds it: pretty-printed, with a final newline. */
export const snapshotText = (document: JsonObject) => `${JSON.stringify(document, null, 2)}\n`
