import { Schema } from "effect"

/** An ISO-8601 UTC time as event payloads carry it (already formatted). */
export const IsoTime = Schema.String.annotate({ format: "date-time", description: "ISO-8601 UTC time" })
