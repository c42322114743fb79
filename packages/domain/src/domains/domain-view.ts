import { DateTime, Option, Schema } from "effect"
import { deriveView, DomainId, IsoTime } from "../shared/index.ts"
import { CustomDomain, DomainStatus, DnsObservation, MisconfiguredReason } from "./custom-domain.ts"
import type { DomainPolicy } from "./domain-policy.ts"
import { hostnameToUnicode } from "./hostname.ts"

/** Publish a TXT record: the one action a domain asks for today (`add_cname` and others join the union later). */
export const AddTxtAction = Schema.Struct({
  type: Schema.tag("add_txt"),
  name: Schema.String.annotate({ examples: ["_atrium-challenge.app.example.com"] }),
  value: Schema.String.annotate({ examples: ["atrium-verify=3f2a9c0d1b7e4f6a8c5d2e1f0a9b8c7d"] }),
  message: Schema.String
}).annotate({ identifier: "AddTxtAction" })

/** Nothing to do. */
export const NoAction = Schema.Struct({ type: Schema.tag("none"), message: Schema.String }).annotate({ identifier: "NoAction" })

/** What the workspace should do next, for machines (`type` and its fields) and people (`message`). */
export const NextAction = Schema.Union([AddTxtAction, NoAction]).annotate({ identifier: "NextAction" })
export type NextAction = typeof NextAction.Type

/** What the last check saw, as the wire carries it. */
export const ObservedView = Schema.Struct({
  txt: Schema.Array(Schema.String),
  cname: Schema.NullOr(Schema.String),
  checkedAt: IsoTime,
  error: Schema.NullOr(Schema.String).annotate({ description: "Why a lookup could not be made (the status was kept)" })
}).annotate({ identifier: "DnsObservation" })
export type ObservedView = typeof ObservedView.Type

/** A custom domain as clients see it. */
export const DomainView = Schema.Struct({
  id: DomainId,
  hostname: Schema.String.annotate({ description: "The hostname in ASCII, internationalized labels as punycode (`xn--…`)" }),
  hostnameUnicode: Schema.String.annotate({
    description: "The same hostname as people read it, internationalized labels decoded (`bücher.example`)",
    examples: ["bücher.example"]
  }),
  status: DomainStatus,
  misconfiguredReason: Schema.NullOr(MisconfiguredReason),
  nextAction: NextAction,
  observed: Schema.NullOr(ObservedView),
  verifiedAt: Schema.NullOr(IsoTime),
  lastCheckedAt: Schema.NullOr(IsoTime),
  nextCheckAt: Schema.NullOr(IsoTime),
  createdAt: IsoTime
}).annotate({ identifier: "Domain", description: "A custom domain, its status, what to do next and what DNS showed" })
export type DomainView = typeof DomainView.Type

/** The observation on the wire. */
export const toObservedView = deriveView(DnsObservation, ObservedView, { withheld: [] })

/** The next action of a domain, worded for its status. */
export const nextActionOf = (domain: CustomDomain, policy: DomainPolicy): NextAction => {
  const addTxt = (message: string): NextAction => ({ type: "add_txt", name: domain.challengeName, value: domain.proofValue, message })
  switch (domain.status) {
    case "pending_verification": {
      const deadline = DateTime.formatIso(DateTime.addDuration(domain.pendingSince, policy.verificationWindow))
      return addTxt(`Add a TXT record named ${domain.challengeName} with the value ${domain.proofValue} at your DNS provider. It is checked automatically until ${deadline}.`)
    }
    case "verified":
      return Option.match(domain.proofMissingSince, {
        onNone: () => ({ type: "none", message: "Verified. Keep the TXT record in place: it is checked daily." }),
        onSome: (since) =>
          addTxt(`The TXT record ${domain.challengeName} was not found. Restore it before ${DateTime.formatIso(DateTime.addDuration(since, policy.misconfiguredGrace))} to keep the domain verified.`)
      })
    case "misconfigured":
      return Option.getOrUndefined(domain.misconfiguredReason) === "claimed_elsewhere"
        ? addTxt(`Another workspace proved ownership of this hostname. To claim it back, publish the new value ${domain.proofValue} at ${domain.challengeName} and verify again.`)
        : addTxt(`The TXT record ${domain.challengeName} has been missing for more than the grace period. Add it back to verify the domain again.`)
    case "verification_failed":
      return addTxt(`No proof was found in time. Add the TXT record ${domain.challengeName} with the value ${domain.proofValue}, then verify again.`)
  }
}

/** The public view of a domain: the verification token shown only as `nextAction`'s TXT value, the checker's state withheld. */
const domainView = deriveView(CustomDomain, DomainView, {
  withheld: ["workspaceId", "token", "pendingSince", "proofMissingSince", "checks", "createdBy", "updatedAt"]
})
export const toDomainView = (domain: CustomDomain, policy: DomainPolicy): DomainView =>
  domainView(domain, { hostnameUnicode: hostnameToUnicode(domain.hostname), nextAction: nextActionOf(domain, policy) })
