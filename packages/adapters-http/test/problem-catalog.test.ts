// The error reference derives from one list: every code the server can send (the contract's problems in both OpenAPI
// documents, and the envelope's own) has its entry and its section on /api/docs/errors.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { contractDocuments, envelopeCodes, problemCatalog, problemsPath } from "@atrium/client"
import { AppUnderTest, send } from "./harness.ts"
import { isRecord } from "./json.ts"

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

describe("the error reference", () => {
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
