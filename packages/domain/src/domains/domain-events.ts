import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { deriveView, DomainId, IsoTime } from "../shared/index.ts"
import { CustomDomain, DomainStatus, MisconfiguredReason } from "./custom-domain.ts"
import { ObservedView } from "./domain-view.ts"

/** A domain as its events carry it (never its token: the proof value is the workspace's to publish, not to broadcast). */
export const DomainSummary = Schema.Struct({
  id: DomainId,
  hostname: Schema.String,
  status: DomainStatus,
  verifiedAt: Schema.NullOr(IsoTime),
  observed: Schema.NullOr(ObservedView)
})
export type DomainSummary = typeof DomainSummary.Type

/** The event summary of a domain: its token and the checker's state withheld. */
export const toDomainSummary = deriveView(CustomDomain, DomainSummary, {
  withheld: ["workspaceId", "token", "misconfiguredReason", "lastCheckedAt", "pendingSince", "proofMissingSince", "checks", "nextCheckAt", "createdBy", "createdAt", "updatedAt"]
})

/** Events of the domains area. */
export const CustomDomainEvents = {
  verified: defineEvent("domain.verified", "A custom domain's TXT proof was found; the workspace holds the hostname.", Schema.Struct({ domain: DomainSummary })),
  misconfigured: defineEvent(
    "domain.misconfigured",
    "A verified domain lost its hostname: its proof stayed missing past the 72-hour grace, or another workspace proved the hostname.",
    Schema.Struct({ domain: DomainSummary, reason: MisconfiguredReason })
  ),
  verificationFailed: defineEvent(
    "domain.verification_failed",
    "A pending domain showed no TXT proof within its 7-day window; verify again to restart it.",
    Schema.Struct({ domain: DomainSummary })
  )
}
