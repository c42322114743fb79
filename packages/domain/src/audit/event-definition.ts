import type { Schema } from "effect"

/** A catalog entry: the event type, what it means, and its payload schema. Each area defines the events it emits. */
export interface EventDefinition<Type extends string = string, Data extends Schema.Top = Schema.Top> {
  readonly type: Type
  readonly description: string
  readonly data: Data
}

/** Declares an event type; the webhook catalog lists every definition the areas export. */
export const defineEvent = <const Type extends string, Data extends Schema.Top>(
  type: Type,
  description: string,
  data: Data
): EventDefinition<Type, Data> => ({ type, description, data })
