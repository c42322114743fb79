import { DateTime, Duration, Option, Result, Schema } from "effect"
import { Actor, DomainId, WorkspaceId } from "../shared/index.ts"
import type { DnsLookupFailed } from "./dns-resolver.ts"
import type { DomainPolicy } from "./domain-policy.ts"
import { Hostname } from "./hostname.ts"

/**
 * Where a domain stands: `pending_verification` until its TXT proof is seen (`verification_failed` after the window),
 * `verified`, and `misconfigured` when a verified domain's proof stayed missing past the grace or another workspace
 * proved the hostname.
 */
export const DomainStatus = Schema.Literals(["pending_verification", "verified", "misconfigured", "verification_failed"]).annotate({
  identifier: "DomainStatus"
})
export type DomainStatus = typeof DomainStatus.Type

/** Why a domain is misconfigured. */
export const MisconfiguredReason = Schema.Literals(["proof_missing", "claimed_elsewhere"])
export type MisconfiguredReason = typeof MisconfiguredReason.Type

/** The verification token: 128 random bits as lower-case hex, so the case a resolver hands back never matters. */
export const VerificationToken = Schema.String.check(Schema.isPattern(/^[0-9a-f]{32}$/)).pipe(Schema.brand("VerificationToken"))
export type VerificationToken = typeof VerificationToken.Type

/** Exactly what the last check saw. */
export class DnsObservation extends Schema.Class<DnsObservation>("@atrium/domain/DnsObservation")({
  /** TXT values at the challenge name. */
  txt: Schema.Array(Schema.String),
  /** The hostname's CNAME target, if any. */
  cname: Schema.OptionFromNullOr(Schema.String),
  checkedAt: Schema.DateTimeUtc,
  /** Why a lookup could not be made; the status was left as it was. */
  error: Schema.OptionFromNullOr(Schema.String)
}) {}

/** A hostname a workspace claims, with its verification state and the schedule of its next check. */
export class CustomDomain extends Schema.Class<CustomDomain>("@atrium/domain/CustomDomain")({
  id: DomainId,
  workspaceId: WorkspaceId,
  hostname: Hostname,
  status: DomainStatus,
  token: VerificationToken,
  misconfiguredReason: Schema.OptionFromNullOr(MisconfiguredReason),
  observed: Schema.OptionFromNullOr(DnsObservation),
  verifiedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  lastCheckedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  /** Start of the current verification window (creation, or a person asking again after it failed). */
  pendingSince: Schema.DateTimeUtc,
  /** When a verified domain's proof was first found missing; its grace runs from here. */
  proofMissingSince: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  /** Checks made in the current window, which pick the next backoff step. */
  checks: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /** When the worker checks next (or the end of its lease); none once verification failed. */
  nextCheckAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  createdBy: Actor,
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {
  /** The TXT record name that carries the proof. */
  get challengeName(): string {
    return challengeNameOf(this.hostname)
  }

  /** The TXT value that proves this workspace controls the hostname. */
  get proofValue(): string {
    return proofValueOf(this.token)
  }
}

/** `_atrium-challenge.<hostname>`. */
export const challengeNameOf = (hostname: Hostname): string => `_atrium-challenge.${hostname}`

/** `atrium-verify=<token>`. */
export const proofValueOf = (token: VerificationToken): string => `atrium-verify=${token}`

// Quotes and surrounding space are how DNS panels often show a value; the token is hex, so case is noise.
const normalTxt = (value: string) => value.trim().replace(/^"(.*)"$/s, "$1").trim().toLowerCase()

/** Whether any of the TXT values is the domain's proof. */
export const hasProof = (txt: ReadonlyArray<string>, token: VerificationToken): boolean =>
  txt.some((value) => normalTxt(value) === proofValueOf(token))

/** What one check's lookups returned. */
export interface DnsCheck {
  readonly txt: Result.Result<ReadonlyArray<string>, DnsLookupFailed>
  readonly cname: Result.Result<Option.Option<string>, DnsLookupFailed>
}

/** A status change that emits an event. */
export type DomainTransition = "verified" | "misconfigured" | "verification_failed"

/** A domain after a check, and the transition the check made, if any. */
export interface CheckedDomain {
  readonly domain: CustomDomain
  readonly transition: DomainTransition | undefined
}

const plus = (time: DateTime.Utc, duration: Duration.Duration) => DateTime.addDuration(time, duration)
const earliest = (a: DateTime.Utc, b: DateTime.Utc) => (DateTime.isLessThan(a, b) ? a : b)
const reached = (now: DateTime.Utc, deadline: DateTime.Utc) => !DateTime.isLessThan(now, deadline)

/** The backoff step after `checks` checks in a window. */
export const pendingDelay = (policy: DomainPolicy, checks: number): Duration.Duration =>
  policy.pendingBackoff[Math.min(checks, policy.pendingBackoff.length - 1)] ?? Duration.hours(1)

const lookupError = (error: DnsLookupFailed) => `${error.reason}: ${error.detail}`

/**
 * Applies one check to a domain: the pure transition table. A lookup that could not be made records its error and
 * keeps the status (it never demotes a verified domain); a completed lookup verifies, keeps, starts or ends the grace,
 * or fails a pending domain at the end of its window.
 */
export const applyCheck = (domain: CustomDomain, check: DnsCheck, now: DateTime.Utc, policy: DomainPolicy): CheckedDomain => {
  const observed = new DnsObservation({
    txt: Result.isSuccess(check.txt) ? check.txt.success : [],
    cname: Result.isSuccess(check.cname) ? check.cname.success : Option.none(),
    checkedAt: now,
    error: Result.isFailure(check.txt)
      ? Option.some(lookupError(check.txt.failure))
      : Result.isFailure(check.cname)
      ? Option.some(lookupError(check.cname.failure))
      : Option.none()
  })
  const seen = { ...domain, observed: Option.some(observed), lastCheckedAt: Option.some(now), updatedAt: now }
  const deadline = plus(domain.pendingSince, policy.verificationWindow)
  const daily = plus(now, policy.verifiedInterval)
  const keep = (changes: Partial<CustomDomain>): CheckedDomain => ({ domain: new CustomDomain({ ...seen, ...changes }), transition: undefined })
  const move = (transition: DomainTransition, changes: Partial<CustomDomain>): CheckedDomain => ({ domain: new CustomDomain({ ...seen, ...changes }), transition })
  const nextPending = () => Option.some(earliest(plus(now, pendingDelay(policy, domain.checks)), deadline))

  if (Result.isFailure(check.txt)) {
    switch (domain.status) {
      case "pending_verification":
        // Past the window only a completed lookup may fail the domain; until then keep asking at the slowest step.
        return keep({
          checks: domain.checks + 1,
          nextCheckAt: reached(now, deadline) ? Option.some(plus(now, pendingDelay(policy, Number.MAX_SAFE_INTEGER))) : nextPending()
        })
      case "verified":
        return keep({ nextCheckAt: Option.some(graceAware(domain, daily, policy)) })
      case "misconfigured":
        return keep({ nextCheckAt: Option.some(daily) })
      case "verification_failed":
        return keep({ nextCheckAt: Option.none() })
    }
  }

  const proven = hasProof(check.txt.success, domain.token)
  if (proven) {
    if (domain.status === "verified") return keep({ proofMissingSince: Option.none(), nextCheckAt: Option.some(daily) })
    return move("verified", {
      status: "verified",
      verifiedAt: Option.some(now),
      misconfiguredReason: Option.none(),
      proofMissingSince: Option.none(),
      checks: 0,
      nextCheckAt: Option.some(daily)
    })
  }
  switch (domain.status) {
    case "pending_verification":
      if (reached(now, deadline)) return move("verification_failed", { status: "verification_failed", checks: domain.checks + 1, nextCheckAt: Option.none() })
      return keep({ checks: domain.checks + 1, nextCheckAt: nextPending() })
    case "verified": {
      const missingSince = Option.getOrElse(domain.proofMissingSince, () => now)
      if (reached(now, plus(missingSince, policy.misconfiguredGrace))) {
        return move("misconfigured", {
          status: "misconfigured",
          misconfiguredReason: Option.some("proof_missing"),
          proofMissingSince: Option.some(missingSince),
          nextCheckAt: Option.some(daily)
        })
      }
      return keep({ proofMissingSince: Option.some(missingSince), nextCheckAt: Option.some(earliest(daily, plus(missingSince, policy.misconfiguredGrace))) })
    }
    case "misconfigured":
      return keep({ nextCheckAt: Option.some(daily) })
    case "verification_failed":
      return keep({ nextCheckAt: Option.none() })
  }
}

// A verified domain missing its proof is looked at again no later than the end of its grace.
const graceAware = (domain: CustomDomain, daily: DateTime.Utc, policy: DomainPolicy) =>
  Option.match(domain.proofMissingSince, {
    onNone: () => daily,
    onSome: (since) => earliest(daily, plus(since, policy.misconfiguredGrace))
  })

/** A failed domain a person asks to verify again: a fresh window with the backoff from its first step. */
export const restartVerification = (domain: CustomDomain, now: DateTime.Utc): CustomDomain =>
  new CustomDomain({ ...domain, status: "pending_verification", pendingSince: now, checks: 0, nextCheckAt: Option.some(now), updatedAt: now })

/**
 * The domain of a workspace that lost its hostname to another workspace's proof: misconfigured, with a fresh token, so
 * its old TXT value (still published, perhaps) cannot take the hostname straight back — only a new, deliberate proof can.
 */
export const loseHostname = (domain: CustomDomain, now: DateTime.Utc, freshToken: VerificationToken, policy: DomainPolicy): CustomDomain =>
  new CustomDomain({
    ...domain,
    status: "misconfigured",
    misconfiguredReason: Option.some("claimed_elsewhere"),
    token: freshToken,
    proofMissingSince: Option.none(),
    checks: 0,
    nextCheckAt: Option.some(plus(now, policy.verifiedInterval)),
    updatedAt: now
  })

/** Whether the domain holds its hostname against others: verified, or misconfigured only for want of its own proof. */
export const holdsHostname = (domain: CustomDomain): boolean =>
  domain.status === "verified" ||
  (domain.status === "misconfigured" && Option.getOrUndefined(domain.misconfiguredReason) === "proof_missing")
