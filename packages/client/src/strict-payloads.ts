import type { SchemaAST } from "effect"

/** Parse options for request bodies: unknown fields are a 400, so no one can smuggle in a field they may not set. */
export const strictPayloads: SchemaAST.ParseOptions = { onExcessProperty: "error" }
