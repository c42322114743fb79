// Narrowing helpers for response bodies, so tests read nested JSON without casts.

/** Whether a value is a JSON object. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The objects of a JSON array (an empty list for anything else). */
export const records = (value: unknown): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(value) ? value.filter(isRecord) : []

/** A member of a JSON object, or `undefined`. */
export const member = (value: unknown, name: string): unknown => (isRecord(value) ? value[name] : undefined)
