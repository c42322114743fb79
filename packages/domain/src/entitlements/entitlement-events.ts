import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { IsoTime } from "../shared/index.ts"
import { EntitlementSource, Feature } from "./entitlement.ts"

const EntitlementChange = Schema.Struct({
  feature: Feature,
  source: EntitlementSource,
  expiresAt: Schema.NullOr(IsoTime)
})

/** Events of the entitlements area. */
export const EntitlementEvents = {
  granted: defineEvent("entitlement.granted", "The workspace was granted a feature.", EntitlementChange),
  revoked: defineEvent("entitlement.revoked", "A feature grant was revoked.", EntitlementChange)
}
