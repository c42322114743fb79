import { describe, expect, it } from "@effect/vitest"
import { breakingChanges } from "@atrium/client"

// A small document shaped like Atrium's: refs, a list with an enum, a body, parameters, problem responses, bearer auth.
const base = () => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1.0.0" },
  security: [{ bearer: [] }],
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    schemas: {
      Task: {
        type: "object",
        required: ["id", "status", "usage"],
        properties: {
          id: { type: "string" },
          status: { type: "string", enum: ["queued", "running", "succeeded", "failed"] },
          usage: { type: "object", required: ["tokens"], properties: { tokens: { type: "integer" } } },
          note: { type: ["string", "null"] }
        }
      },
      Problem: { type: "object", required: ["code"], properties: { code: { type: "string", enum: ["not_found", "route_not_found"] } } }
    }
  },
  paths: {
    "/tasks": {
      get: {
        parameters: [
          { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 100 } },
          { name: "cursor", in: "query", required: false, schema: { type: "string" } }
        ],
        responses: {
          "200": { content: { "application/json": { schema: { type: "object", properties: { data: { type: "array", items: { $ref: "#/components/schemas/Task" } } }, required: ["data"] } } } },
          "404": { content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } }
        }
      },
      post: {
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", required: ["model"], additionalProperties: false, properties: { model: { type: "string", maxLength: 100 }, prompt: { type: "string" } } } } }
        },
        responses: { "202": { content: { "application/json": { schema: { $ref: "#/components/schemas/Task" } } } } }
      }
    },
    "/tasks/{id}": {
      get: {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Task" } } } } }
      }
    }
  }
})

type Doc = ReturnType<typeof base>
const changed = (edit: (doc: Doc) => void) => {
  const doc = base()
  edit(doc)
  return breakingChanges(base(), JSON.parse(JSON.stringify(doc)))
}
const changesOf = (edit: (doc: Doc) => void) => changed(edit).map((b) => `${b.location}: ${b.change}`)

describe("OpenAPI breaking-change guard", () => {
  it("passes an unchanged document and additive changes", () => {
    expect(breakingChanges(base(), base())).toEqual([])
    expect(changed((doc) => {
      Object.assign(doc.paths, { "/new": { get: { responses: { "200": {} } } } })
      Object.assign(doc.components.schemas.Task.properties, { extra: { type: "string" } })
      doc.components.schemas.Task.properties.status.enum.push("canceled")
      doc.paths["/tasks"].get.parameters.push({ name: "status", in: "query", required: false, schema: { type: "string" } })
      Object.assign(doc.paths["/tasks"].post.requestBody.content["application/json"].schema.properties, { tags: { type: "array" } })
      doc.paths["/tasks"].post.requestBody.content["application/json"].schema.properties.model.maxLength = 200
    })).toEqual([])
  })

  it("names a removed path and a removed operation", () => {
    expect(changesOf((doc) => {
      Object.assign(doc, { paths: { "/tasks": { get: doc.paths["/tasks"].get } } })
    })).toEqual(["POST /tasks: operation removed", "/tasks/{id}: path removed"])
  })

  it("names a removed response field, including one behind a $ref", () => {
    expect(changesOf((doc) => {
      const { note: _note, ...rest } = doc.components.schemas.Task.properties
      Object.assign(doc.components.schemas.Task, { properties: rest })
    })).toEqual(["GET /tasks 200.data[].note: response field removed", "POST /tasks 202.note: response field removed", "GET /tasks/{id} 200.note: response field removed"])
  })

  it("names a removed enum value and a removed error code", () => {
    expect(changesOf((doc) => {
      doc.components.schemas.Task.properties.status.enum = ["queued", "running", "succeeded"]
      doc.components.schemas.Problem.properties.code.enum = ["not_found"]
    })).toEqual([
      'GET /tasks 200.data[].status: enum value removed: "failed"',
      'GET /tasks 404.code: enum value removed: "route_not_found"',
      'POST /tasks 202.status: enum value removed: "failed"',
      'GET /tasks/{id} 200.status: enum value removed: "failed"'
    ])
  })

  it("names a narrowed type in a request and a changed type in a response", () => {
    expect(changesOf((doc) => {
      doc.paths["/tasks"].get.parameters[0] = { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 50 } }
      doc.paths["/tasks"].post.requestBody.content["application/json"].schema.properties.model.maxLength = 50
      Object.assign(doc.components.schemas.Task.properties.usage.properties, { tokens: { type: "string" } })
    })).toEqual([
      "GET /tasks query:limit: maximum tightened from 100 to 50",
      "GET /tasks 200.data[].usage.tokens: type changed from integer to string",
      "POST /tasks body.model: maxLength tightened from 100 to 50",
      "POST /tasks 202.usage.tokens: type changed from integer to string",
      "GET /tasks/{id} 200.usage.tokens: type changed from integer to string"
    ])
  })

  it("names a new required request field and a new required parameter", () => {
    expect(changesOf((doc) => {
      doc.paths["/tasks"].post.requestBody.content["application/json"].schema.required.push("prompt")
      doc.paths["/tasks"].get.parameters.push({ name: "workspace", in: "query", required: true, schema: { type: "string" } })
    })).toEqual(["GET /tasks query:workspace: new required parameter", "POST /tasks body.prompt: new required request field"])
  })

  it("names changed authentication", () => {
    expect(changesOf((doc) => {
      doc.components.securitySchemes.bearer = { type: "http", scheme: "basic" }
      Object.assign(doc.paths["/tasks/{id}"].get, { security: [] })
    })).toEqual(["GET /tasks/{id}: authentication changed", "securitySchemes.bearer: authentication scheme changed or removed"])
  })
})
