import { Schema } from "effect"

/** Identifier of a model in the server-held catalog. */
export const ModelId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/))
  .annotate({ description: "Model identifier from the catalog", examples: ["atrium-local-1"] })
  .pipe(Schema.brand("ModelId"))
export type ModelId = typeof ModelId.Type
