import { assert, describe, it } from "@effect/vitest"
import { Domain } from "@atrium/domain/testing"
import { Effect } from "effect"
import { OpenApi } from "effect/http-api"
import { Api, type RateLimitOptions } from "../src/index.ts"
import { addKey, AppUnderTest, type Reply, send } from "./harness.ts"
import { contractRoutes, type ContractRoute, methodOf, seedTeam } from "./identity-harness.ts"
import { isRecord } from "./json.ts"

// Every route's inputs, read from the contract's own OpenAPI document, are filled with hostile values one at a time;
// the answer must be one the operation documents, never a 5xx. Strings that no layer can keep (NUL, lone surrogates)
// must be 400 `invalid_request` wherever they appear: one rule, at the schema level.

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonSchema = Record<string, unknown>

const spec: unknown = JSON.parse(JSON.stringify(OpenApi.fromApi(Api)))
const components = isRecord(spec) && isRecord(spec.components) && isRecord(spec.components.schemas) ? spec.components.schemas : {}

const resolve = (schema: unknown): JsonSchema => {
  if (!isRecord(schema)) return {}
  if (typeof schema.$ref === "string") return resolve(components[schema.$ref.replace("#/components/schemas/", "")])
  return schema
}

const branches = (schema: JsonSchema): ReadonlyArray<JsonSchema> => {
  const options = schema.anyOf ?? schema.oneOf
  return Array.isArray(options) ? options.map(resolve) : []
}

// A plausible value for a schema, so the other inputs of a request pass and the hostile one is what is judged.
const sample = (raw: unknown, depth = 0): Json => {
  const schema = resolve(raw)
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return sample({ ...schema, allOf: undefined, ...resolve(schema.allOf[0]) }, depth)
  const [first] = branches(schema)
  if (first !== undefined) return sample(first.type === "null" ? branches(schema)[1] ?? first : first, depth)
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  if ("const" in schema) return schema.const as Json
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  switch (schema.type) {
    case "string":
      if (schema.format === "date-time") return new Date(Date.now() - 60_000).toISOString()
      if (typeof schema.pattern === "string" && schema.pattern.includes("#")) return "#3366ff"
      return "https://hooks.example.com/x".slice(0, Math.max(1, typeof schema.maxLength === "number" ? schema.maxLength : 26))
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1
    case "boolean":
      return true
    case "array":
      return typeof schema.minItems === "number" && schema.minItems > 0 && depth < 4 ? [sample(schema.items, depth + 1)] : []
    case "object": {
      const out: Record<string, Json> = {}
      const properties = isRecord(schema.properties) ? schema.properties : {}
      const required = Array.isArray(schema.required) ? schema.required : []
      for (const name of required) if (typeof name === "string" && depth < 4) out[name] = sample(properties[name], depth + 1)
      return out
    }
    default:
      return "x"
  }
}

/** Where a value sits in a JSON body, and what its schema says it is. */
interface Leaf {
  readonly path: ReadonlyArray<string | number>
  readonly kind: "string" | "number" | "date"
}

const leavesOf = (raw: unknown, value: Json, path: ReadonlyArray<string | number> = []): ReadonlyArray<Leaf> => {
  const schema = resolve(raw)
  const pick = branches(schema).find((branch) => branch.type !== "null") ?? schema
  if (typeof value === "string") return [{ path, kind: pick.format === "date-time" ? "date" : "string" }]
  if (typeof value === "number") return [{ path, kind: "number" }]
  if (Array.isArray(value)) return value.flatMap((item, i) => leavesOf(pick.items, item, [...path, i]))
  if (isRecord(value)) {
    const properties = isRecord(pick.properties) ? pick.properties : {}
    return Object.entries(value).flatMap(([key, item]) => leavesOf(properties[key], item, [...path, key]))
  }
  return []
}

const setAt = (value: Json, path: ReadonlyArray<string | number>, replacement: Json): Json => {
  const [head, ...rest] = path
  if (head === undefined) return replacement
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? setAt(item, rest, replacement) : item))
  if (isRecord(value) && typeof head === "string") return { ...value, [head]: setAt(value[head] ?? null, rest, replacement) }
  return value
}

// A seeded generator, so a failure names a reproducible case.
let seed = 20261123
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
const randomText = (length: number) =>
  Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0x10000))).join("")

const unstorable = ["a\u0000b", "\u0000", "\uD800", "x\uDC00", "\uDBFF\uDBFF", `ok${"\uD83D"}`]
const odd = ["", " ", "\u202Eevil", "e\u0301\u0301\u0301", "𝕏𝔂𝔃", "\u200B\uFEFF", "\uFFFF", "💩".repeat(300), "a".repeat(70_000), "ｆｕｌｌ"]
const extremeNumbers = [1e308, -1e308, 2 ** 53 + 1, -(2 ** 31) - 1, 2 ** 63, -1, 0, 0.5, 1e-300]
const extremeDates = ["-271821-04-20T00:00:00.000Z", "+275760-09-13T00:00:00.000Z", "0000-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "9999-12-31T23:59:59.999Z", "2026-02-30T00:00:00Z", "not a date"]

const hostileFor = (kind: Leaf["kind"]): ReadonlyArray<{ readonly value: Json; readonly mustBe400: boolean }> => {
  const texts = [...unstorable.map((value) => ({ value, mustBe400: true })), ...odd.map((value) => ({ value, mustBe400: false }))]
  const randoms = Array.from({ length: 4 }, () => randomText(1 + Math.floor(random() * 40))).map((value) => ({ value, mustBe400: !value.isWellFormed() || value.includes("\u0000") }))
  switch (kind) {
    case "number":
      return [...extremeNumbers.map((value) => ({ value, mustBe400: false })), { value: "1", mustBe400: true }]
    case "date":
      return [...extremeDates.map((value) => ({ value, mustBe400: false })), ...unstorable.map((value) => ({ value, mustBe400: true }))]
    default:
      return [...texts, ...randoms]
  }
}

const operationOf = (route: ContractRoute) => {
  const path = route.path.replace(/:(\w+)/g, "{$1}")
  const item = isRecord(spec) && isRecord(spec.paths) && isRecord(spec.paths[path]) ? spec.paths[path] : {}
  const operation = item[route.method.toLowerCase()]
  return isRecord(operation) ? operation : {}
}

const documented = (route: ContractRoute) => {
  const responses = operationOf(route).responses
  return new Set(isRecord(responses) ? Object.keys(responses).map(Number) : [])
}

const bodySchemaOf = (route: ContractRoute): unknown => {
  const body = operationOf(route).requestBody
  return isRecord(body) && isRecord(body.content) && isRecord(body.content["application/json"]) ? body.content["application/json"].schema : undefined
}

const queryNamesOf = (route: ContractRoute): ReadonlyArray<string> => {
  const parameters = operationOf(route).parameters
  return Array.isArray(parameters)
    ? parameters.filter((p) => isRecord(p) && p.in === "query" && typeof p.name === "string").map((p) => String(p.name))
    : []
}

// A well-formed id that names nothing for each path parameter: the example the contract documents (`whe_4xQ9…`).
const pathOf = (route: ContractRoute) => {
  const parameters = operationOf(route).parameters
  let path = route.path
  for (const parameter of Array.isArray(parameters) ? parameters : []) {
    if (!isRecord(parameter) || parameter.in !== "path" || typeof parameter.name !== "string") continue
    const examples = resolve(parameter.schema).examples
    const example = Array.isArray(examples) && typeof examples[0] === "string" ? examples[0] : "x_placeholder0"
    path = path.replace(`:${parameter.name}`, example)
  }
  return path
}

const generous = (limit: number): RateLimitOptions => ({ limit, window: "1 minute" })
const options = {
  rateLimit: generous(1_000_000),
  throttles: {
    signIn: { perEmail: generous(1_000_000), perAddress: generous(1_000_000) },
    signUp: { perEmail: generous(1_000_000), perAddress: generous(1_000_000) },
    refresh: { perAddress: generous(1_000_000) },
    acceptInvitation: { perAddress: generous(1_000_000), perSession: generous(1_000_000) }
  }
}

// Both stores configured: an unconfigured store answers its notifications 503 by design, which would hide their checks.
const bundleId = "com.example.atrium"
const configuredStores = Domain.layerMemoryWith({ stores: { products: [], apple: { bundleId, environments: ["production"] }, google: { packageName: bundleId } } })

describe("hostile inputs on every route", () => {
  it.effect("NUL and lone surrogates are 400 anywhere; extreme numbers, dates and odd Unicode get documented 4xx, never 5xx", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const key = yield* addKey(team.workspaceId, ["write"])
      const failures: Array<string> = []
      let cases = 0
      const judge = (route: ContractRoute, label: string, reply: Reply, mustBe400: boolean) => {
        cases++
        const allowed = documented(route)
        if (reply.status >= 500 || (reply.status >= 400 && !allowed.has(reply.status))) {
          failures.push(`${route.method} ${route.path} ${label}: ${reply.status} ${reply.text.slice(0, 160)}`)
        } else if (mustBe400 && (reply.status !== 400 || reply.body.code !== "invalid_request")) {
          failures.push(`${route.method} ${route.path} ${label}: expected 400 invalid_request, got ${reply.status}`)
        }
      }
      for (const route of contractRoutes()) {
        const method = methodOf(route)
        const token = route.path.startsWith("/api/v1/") ? key : team.owner.token
        const path = pathOf(route)
        const schema = bodySchemaOf(route)
        if (schema !== undefined && method !== "GET" && method !== "DELETE") {
          const base = sample(schema)
          for (const leaf of leavesOf(schema, base)) {
            for (const { mustBe400, value } of hostileFor(leaf.kind)) {
              const body = JSON.stringify(setAt(base, leaf.path, value))
              const headers = route.name === "putAppearance" ? { "if-match": "*" } : undefined
              const reply = yield* send(method, path, { key: token, body, ...(headers === undefined ? {} : { headers }) })
              judge(route, `body ${leaf.path.join(".")}=${JSON.stringify(value).slice(0, 24)}`, reply, mustBe400)
            }
          }
        }
        for (const name of queryNamesOf(route)) {
          for (const [value, mustBe400] of [["a%00b", true], ["%ED%A0%80", false], ["1e308", false], ["-1", false], ["NaN", false], ["Infinity", false], ["LTg2NDAwMDAwMDAwMDAwMDAuZXZ0X3g", false], ["x".repeat(5000), false]] as const) {
            const reply = yield* send("GET", `${path}?${name}=${value}`, { key: token })
            judge(route, `query ${name}=${value.slice(0, 24)}`, reply, mustBe400)
          }
        }
      }
      assert.isAbove(cases, 500)
      assert.deepStrictEqual(failures, [])
    }).pipe(Effect.provide(AppUnderTest(options, configuredStores))), 120_000)
})
