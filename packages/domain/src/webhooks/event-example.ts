import { Option, Schema } from "effect"
import type { EmittedEvent, EventDefinition, EventPayload } from "../audit/index.ts"

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

// A value for a JSON Schema: its examples first, then its constants, enums and shapes.
const sampleOf = (input: unknown, definitions: Json, depth: number): unknown => {
  if (!isObject(input) || depth > 8) return null
  const ref = input.$ref
  const schema = typeof ref === "string" ? definitions[ref.split("/").pop() ?? ""] : input
  if (!isObject(schema)) return null
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if ("const" in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key]
    if (Array.isArray(options)) return sampleOf(options.find((option) => !isObject(option) || option.type !== "null") ?? options[0], definitions, depth + 1)
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return sampleOf(schema.allOf[0], definitions, depth + 1)
  switch (Array.isArray(schema.type) ? schema.type.find((type) => type !== "null") : schema.type) {
    case "object": {
      const properties = isObject(schema.properties) ? schema.properties : {}
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, sampleOf(property, definitions, depth + 1)]))
    }
    case "array":
      return schema.items === undefined ? [] : [sampleOf(schema.items, definitions, depth + 1)]
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1
    case "boolean":
      return true
    case "string":
      return schema.format === "date-time" ? "2026-01-31T12:00:00.000Z" : "example"
    default:
      return null
  }
}

/**
 * An example of `definition`'s event made from its payload schema (its examples, else its shapes), or `None` when the
 * made value does not pass the schema: a test event of that type then cannot be sent.
 */
export const exampleEvent = (
  definition: EventDefinition<string, EventPayload & { readonly DecodingServices: never }>
): Option.Option<EmittedEvent<string, EventPayload>> => {
  const document = Schema.toJsonSchemaDocument(definition.data)
  const sample = sampleOf(document.schema, document.definitions, 0)
  return Option.map(Schema.decodeUnknownOption(definition.data)(sample), (data) => ({ definition, data, notify: false }))
}
