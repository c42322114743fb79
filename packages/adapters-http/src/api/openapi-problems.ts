// Effect's own decode/encode problems (`BadRequestProblem`, `InternalServerErrorProblem`) do not declare the
// `code` and `requestId` members the envelope adds to them at runtime; this makes the document say so.

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const requestId = { type: "string", description: "Id of the request, also sent as the `x-request-id` header" }

const patches: ReadonlyArray<readonly [schema: string, code: string]> = [
  ["BadRequestProblemEncoded", "invalid_request"],
  ["InternalServerErrorProblemEncoded", "internal_error"]
]

/** Documents the members the envelope fills into Effect's built-in problems. */
export const documentEnvelopeMembers = (spec: Record<string, unknown>): Record<string, unknown> => {
  const components = spec.components
  if (!isRecord(components) || !isRecord(components.schemas)) return spec
  for (const [name, code] of patches) {
    const schema = components.schemas[name]
    if (!isRecord(schema) || !isRecord(schema.properties)) continue
    schema.properties.code = { type: "string", enum: [code], description: "Stable error code" }
    schema.properties.requestId = requestId
    schema.required = Array.isArray(schema.required) ? [...schema.required, "code"] : ["code"]
  }
  return spec
}
