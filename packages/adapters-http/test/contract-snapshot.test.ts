import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Api, breakingChanges, contractDocuments, describeBreakingChanges, openApiDocument, snapshotText, v1Document } from "@atrium/client"
import { refreshHint, snapshotPath } from "../scripts/snapshot-path.ts"

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const parseObject = (text: string): JsonObject => {
  const value: Json = JSON.parse(text)
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}
}
const committed = (slug: string) => parseObject(readFileSync(snapshotPath(contractDocuments.find((d) => d.slug === slug) ?? v1Document), "utf8"))
const semver = (version: Json | undefined) => (typeof version === "string" ? version.split(".").map(Number) : [])
const infoVersion = (document: JsonObject) => {
  const info = document["info"]
  return typeof info === "object" && info !== null && !Array.isArray(info) ? info["version"] : undefined
}

// Walks a copy of a document along `path` and hands the object there to `edit`.
const breakCopy = (document: JsonObject, path: ReadonlyArray<string>, edit: (target: JsonObject) => void): JsonObject => {
  const copy = parseObject(JSON.stringify(document))
  let target: Json | undefined = copy
  for (const key of path) target = typeof target === "object" && target !== null && !Array.isArray(target) ? target[key] : undefined
  expect(typeof target === "object" && target !== null && !Array.isArray(target), `no object at ${path.join(" > ")}`).toBe(true)
  if (typeof target === "object" && target !== null && !Array.isArray(target)) edit(target)
  return copy
}

describe("the committed contract snapshots guard against breaking changes", () => {
  for (const document of contractDocuments) {
    it(`${document.slug}: the generated document breaks nothing the committed snapshot promises`, () => {
      const snapshot = committed(document.slug)
      const generated = openApiDocument(Api, document)
      const breaks = breakingChanges(snapshot, generated)
      expect(
        breaks,
        `${document.title} breaks its clients:\n${describeBreakingChanges(breaks)}\n` +
          "A breaking change needs a new major version under its own prefix; make the change additive instead."
      ).toEqual([])
      const [major, minor, patch] = semver(infoVersion(generated))
      const [snapshotMajor] = semver(infoVersion(snapshot))
      expect(major, "info.version keeps the snapshot's major").toBe(snapshotMajor)
      expect([minor, patch].every(Number.isInteger)).toBe(true)
      if (snapshotText(generated) !== snapshotText(snapshot)) {
        // Additive: it passes, and says how to make the snapshot current.
        console.warn(`${document.title} changed additively since its snapshot: ${refreshHint}.`)
      }
    })
  }

  // Each kind of break, made on purpose to a copy of the committed v1 document, is caught and named.
  const v1 = committed("v1")
  const cases: ReadonlyArray<readonly [string, JsonObject, string]> = [
    ["a removed path", breakCopy(v1, ["paths"], (paths) => { delete paths["/api/v1/usage"] }), "/api/v1/usage: path removed"],
    ["a removed operation", breakCopy(v1, ["paths", "/api/v1/webhook-endpoints/{id}"], (item) => { delete item["patch"] }), "PATCH /api/v1/webhook-endpoints/{id}: operation removed"],
    ["a removed response field", breakCopy(v1, ["components", "schemas", "Workspace", "properties"], (fields) => { delete fields["slug"] }), "slug: response field removed"],
    ["a removed enum value", breakCopy(v1, ["components", "schemas", "AiTask", "properties", "status"], (status) => { status["enum"] = ["queued"] }), "enum values removed"],
    ["a removed error code", breakCopy(v1, ["components", "schemas", "ApiKeyRejectedEncoded", "properties", "code"], (code) => {
      code["enum"] = ["missing_credentials"]
    }), "enum values removed"],
    ["a narrowed type", breakCopy(v1, ["components", "schemas", "Workspace", "properties", "personal"], (field) => { field["type"] = "string" }), "type changed from boolean to string"],
    ["a new required request field", breakCopy(v1, ["components", "schemas", "CreateWebhookEndpoint"], (schema) => {
      schema["required"] = [...(Array.isArray(schema["required"]) ? schema["required"] : []), "description"]
    }), "description: new required request field"],
    ["a new required parameter", breakCopy(v1, ["paths", "/api/v1/events", "get"], (operation) => {
      operation["parameters"] = [...(Array.isArray(operation["parameters"]) ? operation["parameters"] : []), { name: "since", in: "query", required: true, schema: { type: "string" } }]
    }), "query:since: new required parameter"],
    ["changed authentication", breakCopy(v1, ["paths", "/api/v1/entitlements", "get"], (operation) => { operation["security"] = [{ other: [] }] }), "GET /api/v1/entitlements: authentication changed"]
  ]
  for (const [kind, broken, named] of cases) {
    it(`fails on ${kind}, naming it`, () => {
      const report = describeBreakingChanges(breakingChanges(v1, broken))
      expect(report).toContain(named)
    })
  }

  it("passes an additive change: a new path, a new optional field, a new response field", () => {
    const added = breakCopy(breakCopy(breakCopy(v1, ["paths"], (paths) => {
      paths["/api/v1/new-things"] = { get: { responses: { "200": { description: "ok" } } } }
    }), ["components", "schemas", "CreateWebhookEndpoint", "properties"], (fields) => {
      fields["label"] = { type: "string" }
    }), ["components", "schemas", "Workspace", "properties"], (fields) => {
      fields["region"] = { type: "string" }
    })
    expect(describeBreakingChanges(breakingChanges(v1, added))).toBe("")
  })
})
