// A sample payload for an event type, made from the JSON Schema of its `data` (examples first, then shapes).

const resolve = (schema, root) => {
  if (typeof schema?.$ref !== "string") return schema
  const name = schema.$ref.split("/").pop()
  return root?.$defs?.[name] ?? root?.definitions?.[name] ?? {}
}

const sampleOf = (input, root, depth) => {
  const schema = resolve(input, root)
  if (schema === undefined || schema === null || depth > 8) return null
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if ("const" in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(schema[key])) {
      const choice = schema[key].find((option) => resolve(option, root)?.type !== "null") ?? schema[key][0]
      return sampleOf(choice, root, depth + 1)
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type
  switch (type) {
    case "object": {
      const out = {}
      for (const [name, property] of Object.entries(schema.properties ?? {})) out[name] = sampleOf(property, root, depth + 1)
      return out
    }
    case "array":
      return schema.items === undefined ? [] : [sampleOf(schema.items, root, depth + 1)]
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0
    case "boolean":
      return true
    case "string":
      if (schema.format === "date-time") return "2026-01-31T12:00:00.000Z"
      return "string"
    default:
      return schema.properties === undefined ? null : sampleOf({ ...schema, type: "object" }, root, depth + 1)
  }
}

/** The envelope a receiver gets for `type`, with a sample `data` from `schema`. */
export const samplePayload = (type, schema) => ({
  id: "evt_4xQ9aZ1b7HkP0mVcT3sLeR",
  type,
  createdAt: "2026-01-31T12:00:00.000Z",
  workspaceId: "ws_4xQ9aZ1b7HkP0mVcT3sLeR",
  data: sampleOf(schema, schema, 0)
})
