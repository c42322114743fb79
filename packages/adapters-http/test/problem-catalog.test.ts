// The error reference derives from one list: every code the server can send (the contract's problems in both OpenAPI
// documents, and the envelope's own) has its entry and its section on /api/docs/errors.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Api, contractDocuments, envelopeCodes, openApiDocument, problemCatalog, problemsPath } from "@atrium/client"
import { AppUnderTest, send } from "./harness.ts"
import { isRecord, member } from "./json.ts"

// The `code` values of every problem body a document declares (enum or const of a `code` property).
const declaredCodes = (document: unknown, into: Set<string>) => {
  if (Array.isArray(document)) {
    for (const item of document) declaredCodes(item, into)
    return into
  }
  if (!isRecord(document)) return into
  const properties = document.properties
  if (isRecord(properties) && isRecord(properties.code)) {
    const code = properties.code
    if (Array.isArray(code.enum)) for (const value of code.enum) into.add(String(value))
    if (typeof code.const === "string") into.add(code.const)
  }
  for (const value of Object.values(document)) declaredCodes(value, into)
  return into
}

// Follows `$ref`s into the document's components, so a response's codes are found wherever its schema lives.
const resolved = (document: unknown, schema: unknown, seen: Set<string> = new Set()): unknown => {
  if (Array.isArray(schema)) return schema.map((item) => resolved(document, item, seen))
  if (!isRecord(schema)) return schema
  const ref = schema.$ref
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/") && !seen.has(ref)) {
    const name = ref.slice("#/components/schemas/".length)
    return resolved(document, member(member(member(document, "components"), "schemas"), name), new Set([...seen, ref]))
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolved(document, value, seen)]))
}

// Every (status, code) pair a document's problem responses declare, as `"<status> <code>"`.
const declaredStatuses = (document: unknown): Set<string> => {
  const pairs = new Set<string>()
  for (const item of Object.values(member(document, "paths") ?? {})) {
    if (!isRecord(item)) continue
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(member(operation, "responses") ?? {})) {
        const schema = member(member(member(response, "content"), "application/problem+json"), "schema")
        for (const code of declaredCodes(resolved(document, schema), new Set())) pairs.add(`${status} ${code}`)
      }
    }
  }
  return pairs
}

describe("the error reference", () => {
  it("lists each code with the status the contract declares it under", () => {
    const listed = new Map(problemCatalog.map((problem) => [problem.code, problem.status]))
    const pairs = new Set<string>()
    for (const document of contractDocuments) for (const pair of declaredStatuses(openApiDocument(Api, document))) pairs.add(pair)
    // Sanity: the walk finds problems of several statuses.
    for (const pair of ["401 invalid_api_key", "404 not_found", "409 domain_taken", "503 unavailable"]) assert.isTrue(pairs.has(pair), pair)
    const drifted = [...pairs].filter((pair) => {
      const [status, code] = pair.split(" ")
      return listed.get(code ?? "") !== Number(status)
    })
    assert.deepStrictEqual(drifted, [], `codes declared under a status the error reference does not list them with: ${drifted.join(", ")}`)
  })


  it.effect("has an entry and a section for every code the server can send", () =>
    Effect.gen(function*() {
      const codes = new Set<string>(envelopeCodes)
      for (const document of contractDocuments) {
        const reply = yield* send("GET", document.path)
        assert.strictEqual(reply.status, 200)
        declaredCodes(reply.body, codes)
      }
      // Sanity: the documents do declare problems of their own areas.
      for (const code of ["invalid_token", "domain_taken", "purchase_owned_elsewhere", "invalid_signature"]) assert.isTrue(codes.has(code), code)
      const listed = new Set(problemCatalog.map((problem) => problem.code))
      const missing = [...codes].filter((code) => !listed.has(code))
      assert.deepStrictEqual(missing, [], `codes the server sends without an entry in the error reference: ${missing.join(", ")}`)
      const page = yield* send("GET", problemsPath)
      assert.strictEqual(page.status, 200)
      for (const code of codes) assert.include(page.text, `<section id="${code}">`, code)
      const statuses = problemCatalog.map((problem) => problem.status)
      assert.deepStrictEqual(statuses, [...statuses].sort((a, b) => a - b), "listed by status")
    }).pipe(Effect.provide(AppUnderTest())))
})
