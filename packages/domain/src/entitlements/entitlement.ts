import { DateTime, Option, Schema } from "effect"
import { WorkspaceId } from "../shared/index.ts"

/** A feature a workspace can be entitled to, e.g. `ai.basic`. */
export const Feature = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9_.:-]{0,63}$/))
  .annotate({ description: "Feature key", examples: ["ai.basic"] })
  .pipe(Schema.brand("Feature"))
export type Feature = typeof Feature.Type

/** Where a grant came from. */
export const EntitlementSource = Schema.Literals(["plan", "purchase", "trial", "promotion", "manual"]).annotate({
  description: "Where the grant came from"
})
export type EntitlementSource = typeof EntitlementSource.Type

/** What within a source a grant belongs to (a purchase id for `purchase`); empty when the source has one grant per feature. */
export const SourceRef = Schema.String.check(Schema.isMaxLength(100)).annotate({
  description: "The record within the source the grant belongs to (a purchase id), or empty"
})

/**
 * One grant of a feature to a workspace by one source, optionally until a time. Grants are keyed by
 * (workspace, feature, source, sourceRef): a purchase's grant and a manual grant of the same feature live side by side,
 * and the workspace holds the feature while any of them is in force.
 */
export class Entitlement extends Schema.Class<Entitlement>("@atrium/domain/Entitlement")({
  workspaceId: WorkspaceId,
  feature: Feature,
  source: EntitlementSource,
  sourceRef: SourceRef,
  grantedAt: Schema.DateTimeUtc,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** In force at `now`: granted and not yet expired. */
  isActiveAt(now: DateTime.Utc): boolean {
    return Option.isNone(this.expiresAt) || DateTime.isLessThan(now, this.expiresAt.value)
  }

  /** The purchase behind a `purchase` grant, when it names one. */
  get purchaseId(): string | null {
    return this.source === "purchase" && this.sourceRef !== "" ? this.sourceRef : null
  }

  /** The grant's identity within its workspace. */
  get key(): string {
    return grantKey(this.feature, this.source, this.sourceRef)
  }
}

/** The identity of a grant within its workspace: feature, source and source reference. */
export const grantKey = (feature: string, source: EntitlementSource, sourceRef: string): string => `${feature}\u0000${source}\u0000${sourceRef}`

/** The features a set of grants makes available at `now`: the union over every source. */
export const featuresInForce = (grants: ReadonlyArray<Entitlement>, now: DateTime.Utc): ReadonlySet<Feature> =>
  new Set(grants.filter((grant) => grant.isActiveAt(now)).map((grant) => grant.feature))
