import { ProviderKind } from "@atrium/domain"
import { Schema } from "effect"

const micros = (description: string, example: number) =>
  Schema.Int.annotate({ description: `${description}, in micro-USD (1 USD = 1,000,000)`, examples: [example] })

/** One model of the server-held catalog: who runs it, what it costs, which feature it needs. */
export const ModelRequirementView = Schema.Struct({
  model: Schema.String.annotate({ description: "Model identifier", examples: ["atrium-local-1"] }),
  provider: ProviderKind.annotate({ description: "Which provider adapter runs the model" }),
  requiredFeature: Schema.String.annotate({ description: "Feature the workspace needs to use the model", examples: ["ai.basic"] }),
  inputPriceMicrosPerMTok: micros("Price per million input tokens", 100_000),
  outputPriceMicrosPerMTok: micros("Price per million output tokens", 400_000),
  maxInputTokens: Schema.Int.annotate({ description: "Largest accepted prompt, in tokens", examples: [32_000] }),
  maxOutputTokens: Schema.Int.annotate({ description: "Largest completion, in tokens", examples: [4_000] }),
  description: Schema.String.annotate({ description: "What the model is for" })
}).annotate({ identifier: "ModelRequirement", description: "A model of the catalog and what using it requires" })
export type ModelRequirementView = typeof ModelRequirementView.Type

/** The whole model catalog. */
export const ModelRequirementList = Schema.Struct({
  data: Schema.Array(ModelRequirementView)
}).annotate({ identifier: "ModelRequirementList", description: "Every model of the catalog" })
