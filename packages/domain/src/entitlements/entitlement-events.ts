import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { IsoTime } from "../shared/index.ts"
import { EntitlementSource, Feature } from "./entitlement.ts"

/** A grant as entitlement events carry it. */
export const EntitlementChange = Schema.Struct({
  feature: Feature,
  source: EntitlementSource,
  expiresAt: Schema.NullOr(IsoTime),
  purchaseId: Schema.NullOr(Schema.String).annotate({ description: "The purchase behind a `purchase` grant, else null" })
})

/** Events of the entitlements area. */
export const EntitlementEvents = {
  granted: defineEvent("entitlement.granted", "The workspace was granted a feature (by one source; others may grant it too).", EntitlementChange),
  revoked: defineEvent("entitlement.revoked", "A feature grant of one source ended; the feature stays while another source grants it.", EntitlementChange)
}
