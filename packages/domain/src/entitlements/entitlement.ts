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

/** A feature granted to a workspace, optionally until a time. */
export class Entitlement extends Schema.Class<Entitlement>("@atrium/domain/Entitlement")({
  workspaceId: WorkspaceId,
  feature: Feature,
  source: EntitlementSource,
  grantedAt: Schema.DateTimeUtc,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** In force at `now`: granted and not yet expired. */
  isActiveAt(now: DateTime.Utc): boolean {
    return Option.isNone(this.expiresAt) || DateTime.isLessThan(now, this.expiresAt.value)
  }
}
