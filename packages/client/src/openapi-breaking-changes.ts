/**
 * Finds the changes between two OpenAPI 3.1 documents that would break a client built against the first: removed
 * paths, operations, response fields, enum values or error codes; narrowed types; new required request fields or
 * parameters; changed authentication. Additive changes (new paths, optional fields, wider request types) pass.
 * A small differ of our own: the maintained npm differs target OpenAPI 3.0 or pull in a CLI toolchain.
 */

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

/** One break, with where it is and what changed. */
export interface BreakingChange {
  readonly location: string
  readonly change: string
}

const isObject = (value: Json | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)
const objectAt = (value: Json | undefined, key: string): JsonObject => {
  const found = isObject(value) ? value[key] : undefined
  return isObject(found) ? found : {}
}
const arrayAt = (value: Json | undefined, key: string): ReadonlyArray<Json> => {
  const found = isObject(value) ? value[key] : undefined
  return Array.isArray(found) ? found : []
}
const stringsOf = (values: ReadonlyArray<Json>): ReadonlyArray<string> => values.flatMap((value) => (typeof value === "string" ? [value] : []))
const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

// Follows `$ref`s into `components`; a cycle or a dangling reference resolves to an empty schema.
const resolver = (document: JsonObject) => (schema: Json | undefined, seen: ReadonlySet<string> = new Set()): JsonObject => {
  if (!isObject(schema)) return {}
  const ref = schema["$ref"]
  if (typeof ref !== "string") return schema
  if (seen.has(ref) || !ref.startsWith("#/")) return {}
  let target: Json | undefined = document
  for (const part of ref.slice(2).split("/")) target = isObject(target) ? target[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined
  return resolver(document)(target, new Set([...seen, ref]))
}

const typesOf = (schema: JsonObject): ReadonlySet<string> => {
  const type = schema["type"]
  if (typeof type === "string") return new Set([type])
  if (Array.isArray(type)) return new Set(stringsOf(type))
  return new Set()
}

const enumOf = (schema: JsonObject): ReadonlyArray<string> | undefined => {
  if ("const" in schema) return [JSON.stringify(schema["const"] ?? null)]
  const values = schema["enum"]
  return Array.isArray(values) ? values.map((value) => JSON.stringify(value)) : undefined
}

const numberAt = (schema: JsonObject, key: string): number | undefined => {
  const value = schema[key]
  return typeof value === "number" ? value : undefined
}

type Direction = "request" | "response"

/** Compares one schema in the direction data flows: requests may only widen, responses may only keep their promises. */
const compareSchemas = (
  resolveOld: ReturnType<typeof resolver>,
  resolveNew: ReturnType<typeof resolver>,
  direction: Direction,
  location: string,
  oldSchema: Json | undefined,
  newSchema: Json | undefined,
  depth = 0
): ReadonlyArray<BreakingChange> => {
  if (depth > 24) return []
  const before = resolveOld(oldSchema)
  const after = resolveNew(newSchema)
  const breaks: Array<BreakingChange> = []
  const add = (change: string) => breaks.push({ location, change })

  const oldTypes = typesOf(before)
  const newTypes = typesOf(after)
  if (oldTypes.size > 0 && newTypes.size > 0) {
    const lost = [...oldTypes].filter((type) => !newTypes.has(type) && !(type === "integer" && newTypes.has("number")))
    const gained = [...newTypes].filter((type) => !oldTypes.has(type) && !(type === "integer" && oldTypes.has("number")))
    if (direction === "request" && lost.length > 0) add(`type narrowed: no longer accepts ${lost.join(", ")}`)
    if (direction === "response" && (gained.length > 0 || lost.length > 0)) add(`type changed from ${[...oldTypes].join("|")} to ${[...newTypes].join("|")}`)
  } else if (oldTypes.size === 0 && newTypes.size > 0 && direction === "request" && !("anyOf" in before) && !("oneOf" in before)) {
    add(`type narrowed to ${[...newTypes].join("|")}`)
  }

  const oldEnum = enumOf(before)
  const newEnum = enumOf(after)
  if (oldEnum !== undefined && newEnum !== undefined) {
    const removed = oldEnum.filter((value) => !newEnum.includes(value))
    if (removed.length > 0) add(`enum value${removed.length > 1 ? "s" : ""} removed: ${removed.join(", ")}`)
  } else if (oldEnum === undefined && newEnum !== undefined && direction === "request") {
    add("now restricted to an enum")
  }

  if (direction === "request") {
    const tighter = (key: string, stricter: (was: number, is: number) => boolean) => {
      const was = numberAt(before, key)
      const is = numberAt(after, key)
      if (is !== undefined && (was === undefined || stricter(was, is))) add(`${key} tightened from ${was ?? "none"} to ${is}`)
    }
    tighter("maxLength", (was, is) => is < was)
    tighter("minLength", (was, is) => is > was)
    tighter("maximum", (was, is) => is < was)
    tighter("minimum", (was, is) => is > was)
    tighter("exclusiveMaximum", (was, is) => is < was)
    tighter("exclusiveMinimum", (was, is) => is > was)
    tighter("maxItems", (was, is) => is < was)
    tighter("minItems", (was, is) => is > was)
    const oldPattern = before["pattern"]
    const newPattern = after["pattern"]
    if (typeof newPattern === "string" && newPattern !== oldPattern) add(`pattern ${oldPattern === undefined ? "added" : "changed"}: ${newPattern}`)
  }

  // Objects: fields, and which of them are required.
  const oldProperties = objectAt(before, "properties")
  const newProperties = objectAt(after, "properties")
  const oldRequired = new Set(stringsOf(arrayAt(before, "required")))
  const newRequired = new Set(stringsOf(arrayAt(after, "required")))
  for (const [name, schema] of Object.entries(oldProperties)) {
    const at = `${location}.${name}`
    if (!(name in newProperties)) {
      if (direction === "response" || after["additionalProperties"] === false) breaks.push({ location: at, change: direction === "response" ? "response field removed" : "request field no longer accepted" })
      continue
    }
    if (direction === "response" && oldRequired.has(name) && !newRequired.has(name)) breaks.push({ location: at, change: "response field no longer always present" })
    breaks.push(...compareSchemas(resolveOld, resolveNew, direction, at, schema, newProperties[name], depth + 1))
  }
  if (direction === "request") {
    for (const name of newRequired) if (!oldRequired.has(name)) breaks.push({ location: `${location}.${name}`, change: "new required request field" })
  }

  // Arrays and unions.
  if ("items" in before || "items" in after) breaks.push(...compareSchemas(resolveOld, resolveNew, direction, `${location}[]`, before["items"], after["items"], depth + 1))
  for (const key of ["anyOf", "oneOf"]) {
    const oldOptions = arrayAt(before, key)
    const newOptions = arrayAt(after, key)
    if (oldOptions.length === 0 || newOptions.length === 0) continue
    if (direction === "request" && newOptions.length < oldOptions.length) add(`${key} lost ${oldOptions.length - newOptions.length} alternative(s)`)
    if (direction === "response" && newOptions.length > oldOptions.length) add(`${key} gained ${newOptions.length - oldOptions.length} alternative(s)`)
    oldOptions.forEach((option, index) => {
      if (index < newOptions.length) breaks.push(...compareSchemas(resolveOld, resolveNew, direction, `${location}<${key}:${index}>`, option, newOptions[index], depth + 1))
    })
  }
  return breaks
}

const jsonBodySchema = (holder: Json | undefined): Json | undefined => {
  const content = objectAt(holder, "content")
  const media = Object.keys(content).find((type) => type.includes("json"))
  return media === undefined ? undefined : objectAt(content, media)["schema"]
}

const securityOf = (document: JsonObject, operation: JsonObject): string =>
  JSON.stringify("security" in operation ? operation["security"] : document["security"] ?? null)

/** Every change from `before` to `after` that would break a client of `before`. */
export const breakingChanges = (before: JsonObject, after: JsonObject): ReadonlyArray<BreakingChange> => {
  const resolveOld = resolver(before)
  const resolveNew = resolver(after)
  const breaks: Array<BreakingChange> = []
  const oldPaths = objectAt(before, "paths")
  const newPaths = objectAt(after, "paths")
  for (const [path, oldItem] of Object.entries(oldPaths)) {
    if (!(path in newPaths)) {
      breaks.push({ location: path, change: "path removed" })
      continue
    }
    const newItem = newPaths[path]
    for (const method of methods) {
      const oldOperation = objectAt(oldItem, method)
      if (Object.keys(oldOperation).length === 0) continue
      const where = `${method.toUpperCase()} ${path}`
      const newOperation = objectAt(newItem, method)
      if (Object.keys(newOperation).length === 0) {
        breaks.push({ location: where, change: "operation removed" })
        continue
      }
      if (securityOf(before, oldOperation) !== securityOf(after, newOperation)) breaks.push({ location: where, change: "authentication changed" })

      const parameterKey = (parameter: JsonObject) => `${String(parameter["in"])}:${String(parameter["name"])}`
      const oldParameters = new Map(arrayAt(oldOperation, "parameters").map((p) => resolveOld(p)).map((p) => [parameterKey(p), p] as const))
      const newParameters = new Map(arrayAt(newOperation, "parameters").map((p) => resolveNew(p)).map((p) => [parameterKey(p), p] as const))
      for (const [key, parameter] of newParameters) {
        const required = parameter["required"] === true
        const old = oldParameters.get(key)
        if (required && (old === undefined || old["required"] !== true)) breaks.push({ location: `${where} ${key}`, change: "new required parameter" })
      }
      for (const [key, parameter] of oldParameters) {
        const updated = newParameters.get(key)
        if (updated === undefined) {
          if (!key.startsWith("header:")) breaks.push({ location: `${where} ${key}`, change: "parameter removed" })
          continue
        }
        breaks.push(...compareSchemas(resolveOld, resolveNew, "request", `${where} ${key}`, parameter["schema"], updated["schema"]))
      }

      const oldBody = resolveOld(oldOperation["requestBody"])
      const newBody = resolveNew(newOperation["requestBody"])
      if (newBody["required"] === true && oldBody["required"] !== true) breaks.push({ location: `${where} body`, change: "request body now required" })
      if (Object.keys(oldBody).length > 0 || Object.keys(newBody).length > 0) {
        breaks.push(...compareSchemas(resolveOld, resolveNew, "request", `${where} body`, jsonBodySchema(oldBody), jsonBodySchema(newBody)))
      }

      const oldResponses = objectAt(oldOperation, "responses")
      const newResponses = objectAt(newOperation, "responses")
      for (const [status, response] of Object.entries(oldResponses)) {
        if (!(status in newResponses)) {
          breaks.push({ location: `${where} ${status}`, change: "response removed" })
          continue
        }
        breaks.push(...compareSchemas(resolveOld, resolveNew, "response", `${where} ${status}`, jsonBodySchema(resolveOld(response)), jsonBodySchema(resolveNew(newResponses[status]))))
      }
    }
  }
  const oldSchemes = objectAt(objectAt(before, "components"), "securitySchemes")
  const newSchemes = objectAt(objectAt(after, "components"), "securitySchemes")
  for (const [name, scheme] of Object.entries(oldSchemes)) {
    if (JSON.stringify(scheme) !== JSON.stringify(newSchemes[name] ?? null)) breaks.push({ location: `securitySchemes.${name}`, change: "authentication scheme changed or removed" })
  }
  return breaks
}

/** The breaks as a report a person reads in a failed test. */
export const describeBreakingChanges = (breaks: ReadonlyArray<BreakingChange>): string =>
  breaks.map((item) => `- ${item.location}: ${item.change}`).join("\n")
