import { Duration } from "effect"
import { Feature, FeatureSpec } from "../entitlements/index.ts"

/** Tunables of custom domains, with the documented defaults. */
export interface DomainPolicy {
  /** Hostnames refused at creation, with everything under them (the service's own domain, say); special-use names always are. */
  readonly deniedSuffixes: ReadonlyArray<string>
  /** Domains one workspace may hold. */
  readonly maxPerWorkspace: number
  /** Delay before each recheck while pending; the last one repeats. */
  readonly pendingBackoff: ReadonlyArray<Duration.Duration>
  /** How long a pending domain has to show its proof before it fails. */
  readonly verificationWindow: Duration.Duration
  /** How often a verified (or misconfigured) domain is rechecked. */
  readonly verifiedInterval: Duration.Duration
  /** How long a verified domain may miss its proof before it is misconfigured. */
  readonly misconfiguredGrace: Duration.Duration
  /** How long a worker's claim is held; longer than any check, so only a crashed worker's claims come back. */
  readonly lease: Duration.Duration
  /** Limit of one DNS lookup, on top of the resolver's own. */
  readonly lookupTimeout: Duration.Duration
  /** The least time between two checks asked for by a person (`POST …/verify`). */
  readonly manualCheckInterval: Duration.Duration
}

/** 1 min, 5 min, 15 min, then hourly for 7 days while pending; daily once verified; 72 h of grace; 20 per workspace. */
export const defaultDomainPolicy: DomainPolicy = {
  deniedSuffixes: [],
  maxPerWorkspace: 20,
  pendingBackoff: [Duration.minutes(1), Duration.minutes(5), Duration.minutes(15), Duration.hours(1)],
  verificationWindow: Duration.days(7),
  verifiedInterval: Duration.days(1),
  misconfiguredGrace: Duration.hours(72),
  lease: Duration.seconds(60),
  lookupTimeout: Duration.seconds(10),
  manualCheckInterval: Duration.seconds(10)
}

/** The feature that lets a workspace add custom domains. */
export const customDomainFeature = Feature.make("domains.custom")

/** What the custom domains area contributes to the feature catalog. */
export const customDomainFeatures: ReadonlyArray<FeatureSpec> = [
  new FeatureSpec({ feature: customDomainFeature, description: "Add custom domains, proven with a DNS TXT record" })
]
