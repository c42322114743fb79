import { eventCatalog, EventType } from "@atrium/domain"
import { JsonSchema, Schema } from "effect"
import type { EventTypeView } from "@atrium/client"

// A standalone JSON Schema per payload: `$defs` travel with the schema that references them.
const standalone = (data: Schema.Top): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(data)
  return {
    $schema: JsonSchema.META_SCHEMA_URI_DRAFT_2020_12,
    ...document.schema,
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {})
  }
}

const describe = (type: EventType): EventTypeView => {
  const definition = eventCatalog[type]
  return { type, description: definition.description, schema: standalone(definition.data) }
}

/** Every catalog entry with the JSON Schema of its payload, in catalog order; build it once and serve it as is. */
export const makeEventTypeList = (): ReadonlyArray<EventTypeView> => EventType.literals.map(describe)
