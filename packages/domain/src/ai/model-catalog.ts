import { Context, Effect, Layer, Option, Schema } from "effect"
import { type Acting, type Forbidden, type InsufficientScope, permits } from "../access/index.ts"
import { Feature, FeatureSpec } from "../entitlements/index.ts"
import { Micros, ModelId } from "../shared/index.ts"



/** Which provider adapter runs a model; provider secrets stay on the server. */
export const ProviderKind = Schema.Literals(["local", "openai-compatible"])
export type ProviderKind = typeof ProviderKind.Type

/** One catalog entry: who runs the model, what it costs, what it needs. */
export class ModelSpec extends Schema.Class<ModelSpec>("@atrium/domain/ModelSpec")({
  model: ModelId,
  provider: ProviderKind,
  requiredFeature: Feature,
  inputPriceMicrosPerMTok: Micros,
  outputPriceMicrosPerMTok: Micros,
  maxInputTokens: Schema.Int.check(Schema.isGreaterThan(0)),
  maxOutputTokens: Schema.Int.check(Schema.isGreaterThan(0)),
  description: Schema.String
}) {}

/** The catalog as configuration supplies it (`ATRIUM_MODEL_CATALOG`, JSON). */
export const ModelCatalogJson = Schema.Array(ModelSpec)

/** The built-in catalog: a free deterministic local model plus common hosted ones. */
export const defaultModelCatalog: ReadonlyArray<ModelSpec> = Schema.decodeUnknownSync(ModelCatalogJson)([
  {
    model: "atrium-local-1",
    provider: "local",
    requiredFeature: "ai.basic",
    inputPriceMicrosPerMTok: 100_000,
    outputPriceMicrosPerMTok: 400_000,
    maxInputTokens: 32_000,
    maxOutputTokens: 4_000,
    description: "Deterministic on-server model; needs no network. Good for development and tests."
  },
  {
    model: "gpt-4o-mini",
    provider: "openai-compatible",
    requiredFeature: "ai.standard",
    inputPriceMicrosPerMTok: 150_000,
    outputPriceMicrosPerMTok: 600_000,
    maxInputTokens: 128_000,
    maxOutputTokens: 16_384,
    description: "Small hosted chat model behind the configured OpenAI-compatible provider."
  },
  {
    model: "gpt-4o",
    provider: "openai-compatible",
    requiredFeature: "ai.advanced",
    inputPriceMicrosPerMTok: 2_500_000,
    outputPriceMicrosPerMTok: 10_000_000,
    maxInputTokens: 128_000,
    maxOutputTokens: 16_384,
    description: "Large hosted chat model behind the configured OpenAI-compatible provider."
  }
])

/** The server-held model catalog. */
export class ModelCatalog extends Context.Service<ModelCatalog, {
  /** Every model, for the services that price and check tasks and for the feature catalog (not a caller's read). */
  readonly list: Effect.Effect<ReadonlyArray<ModelSpec>>
  readonly find: (model: string) => Effect.Effect<Option.Option<ModelSpec>>
  /** Every model with its price and required feature, as a caller reads them: needs `models.read`. */
  readonly requirements: (principal: Acting) => Effect.Effect<ReadonlyArray<ModelSpec>, Forbidden | InsufficientScope>
}>()("@atrium/domain/ModelCatalog") {
  /** A catalog of the given entries. */
  static readonly layerWith = (specs: ReadonlyArray<ModelSpec>) => {
    const byId = new Map<string, ModelSpec>(specs.map((spec) => [spec.model, spec]))
    const list = Effect.succeed(specs)
    return Layer.succeed(ModelCatalog, ModelCatalog.of({
      list,
      find: (model) => Effect.succeed(Option.fromNullishOr(byId.get(model))),
      requirements: (principal) => Effect.andThen(permits(principal, "models.read"), list)
    }))
  }
  /** The built-in catalog. */
  static readonly layer = ModelCatalog.layerWith(defaultModelCatalog)
}

/** What the models contribute to the feature catalog: each required feature once, naming the models it runs. */
export const modelFeatures = (specs: ReadonlyArray<ModelSpec>): ReadonlyArray<FeatureSpec> => {
  const models = new Map<Feature, Array<string>>()
  for (const spec of specs) models.set(spec.requiredFeature, [...(models.get(spec.requiredFeature) ?? []), spec.model])
  return Array.from(models, ([feature, names]) => new FeatureSpec({ feature, description: `AI tasks on ${names.join(", ")}` }))
}
