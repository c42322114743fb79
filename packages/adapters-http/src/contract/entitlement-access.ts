import { Role } from "@atrium/domain"
import { Schema } from "effect"
import { EntitlementView } from "./entitlement-view.ts"

/** Features every plan, including the free one, may carry; anything else is a paid feature. */
const basicFeatures: ReadonlySet<string> = new Set(["ai.basic"])

/** How much of the product the active workspace unlocks, for the app to pick its screens. */
export const EntitlementAccess = Schema.Literals(["full", "limited", "none"]).annotate({
  identifier: "EntitlementAccess",
  description: "`full`: at least one paid feature in force (any feature beyond `ai.basic`). `limited`: only basic " +
    "features (`ai.basic`) in force. `none`: no entitlement in force"
})
export type EntitlementAccess = typeof EntitlementAccess.Type

/** `GET /api/mobile/entitlement`. */
export const MobileEntitlementView = Schema.Struct({
  access: EntitlementAccess,
  entitlements: Schema.Array(EntitlementView),
  role: Role.annotate({ description: "The member's role in the active workspace" })
}).annotate({ identifier: "MobileEntitlement", description: "The active workspace's entitlements and what they unlock" })
export type MobileEntitlementView = typeof MobileEntitlementView.Type

/** The access a set of features in force gives (see `EntitlementAccess`). */
export const accessOf = (features: ReadonlyArray<string>): EntitlementAccess =>
  features.length === 0 ? "none" : features.some((feature) => !basicFeatures.has(feature)) ? "full" : "limited"
