import { EntitlementSource } from "@atrium/domain"
import { Schema } from "effect"

/** One feature grant in force, as listed by `GET /api/v1/entitlements`. */
export const EntitlementView = Schema.Struct({
  feature: Schema.String.annotate({
    description: "Feature key from the feature catalog: a model's `requiredFeature` (`GET /api/v1/models/requirements`) or `domains.custom` (custom domains)",
    examples: ["ai.basic"]
  }),
  source: EntitlementSource,
  grantedAt: Schema.String.annotate({ description: "Grant time, ISO-8601 UTC", examples: ["2026-01-31T12:00:00.000Z"] }),
  expiresAt: Schema.NullOr(Schema.String).annotate({
    description: "Expiry, ISO-8601 UTC; `null` when the grant does not expire",
    examples: [null, "2026-12-31T23:59:59.000Z"]
  }),
  purchaseId: Schema.NullOr(Schema.String).annotate({
    description: "The purchase behind a `purchase` grant; `null` for other sources. A feature granted by several sources is listed once per grant"
  })
}).annotate({ identifier: "Entitlement", description: "A feature granted to the workspace" })
export type EntitlementView = typeof EntitlementView.Type

/** The grants of the caller's workspace that are in force now. */
export const EntitlementList = Schema.Struct({
  data: Schema.Array(EntitlementView)
}).annotate({ identifier: "EntitlementList", description: "Feature grants in force, ordered by feature" })
