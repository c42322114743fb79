import { Context, Effect, Layer, Schema } from "effect"
import { InvalidInput } from "../shared/index.ts"
import { Feature } from "./entitlement.ts"

/** One feature a workspace can hold and what it unlocks; each area contributes the features it checks for. */
export class FeatureSpec extends Schema.Class<FeatureSpec>("@atrium/domain/FeatureSpec")({
  feature: Feature,
  description: Schema.String
}) {}

/** What the feature catalog offers. */
export interface FeatureCatalogShape {
  /** Every known feature once, in the order the areas contributed them. */
  readonly list: ReadonlyArray<FeatureSpec>
  /** The feature when the catalog knows it; invalid input naming the known ones otherwise. */
  readonly known: (feature: string) => Effect.Effect<Feature, InvalidInput>
}

/** A catalog of the areas' contributions; a feature contributed twice keeps its first description. */
export const makeFeatureCatalog = (contributions: ReadonlyArray<ReadonlyArray<FeatureSpec>>): FeatureCatalogShape => {
  const byFeature = new Map<string, FeatureSpec>()
  for (const spec of contributions.flat()) if (!byFeature.has(spec.feature)) byFeature.set(spec.feature, spec)
  const list = Array.from(byFeature.values())
  const names = list.map((spec) => spec.feature).join(", ")
  return {
    list,
    known: (feature) => {
      const spec = byFeature.get(feature)
      return spec === undefined
        ? Effect.fail(new InvalidInput({ detail: `unknown feature "${feature}"; the catalog knows ${names}` }))
        : Effect.succeed(spec.feature)
    }
  }
}

/**
 * The one catalog of features a workspace can be granted: the features the areas check for (each model's required
 * feature, custom domains, …). Operators, store products and grants may name only these, so a typo is refused where it
 * is made instead of granting something nothing reads.
 */
export class FeatureCatalog extends Context.Service<FeatureCatalog, FeatureCatalogShape>()("@atrium/domain/FeatureCatalog") {
  /** A catalog of the given contributions. */
  static readonly layerWith = (contributions: ReadonlyArray<ReadonlyArray<FeatureSpec>>) =>
    Layer.succeed(FeatureCatalog, FeatureCatalog.of(makeFeatureCatalog(contributions)))
}
