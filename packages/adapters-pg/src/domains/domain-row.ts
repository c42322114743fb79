import { Actor, CustomDomain, DnsObservation, DomainId, DomainStatus, Hostname, MisconfiguredReason, VerificationToken, WorkspaceId } from "@atrium/domain"
import { DateTime, Option, Schema } from "effect"

const time = Schema.DateTimeUtcFromDate
const optionalTime = Schema.NullOr(Schema.DateTimeUtcFromDate)

/** The `custom_domains` row as the driver returns it: `timestamptz` as `Date`, `observed_txt` as `text[]`, `created_by` parsed. */
export const DomainRow = Schema.Struct({
  id: DomainId,
  workspace_id: WorkspaceId,
  hostname: Hostname,
  status: DomainStatus,
  token: VerificationToken,
  misconfigured_reason: Schema.NullOr(MisconfiguredReason),
  observed_txt: Schema.NullOr(Schema.Array(Schema.String)),
  observed_cname: Schema.NullOr(Schema.String),
  observed_error: Schema.NullOr(Schema.String),
  observed_at: optionalTime,
  verified_at: optionalTime,
  last_checked_at: optionalTime,
  pending_since: time,
  proof_missing_since: optionalTime,
  checks: Schema.Int,
  next_check_at: optionalTime,
  created_by: Actor,
  created_at: time,
  updated_at: time
})
export type DomainRow = typeof DomainRow.Type

/** Every column, in insert order. */
export const domainColumns =
  "id, workspace_id, hostname, status, token, misconfigured_reason, observed_txt, observed_cname, observed_error, observed_at, " +
  "verified_at, last_checked_at, pending_since, proof_missing_since, checks, next_check_at, created_by, created_at, updated_at"

/** The domain a row stores; an observation exists only with its time. */
export const fromRow = (row: DomainRow): CustomDomain =>
  new CustomDomain({
    id: row.id,
    workspaceId: row.workspace_id,
    hostname: row.hostname,
    status: row.status,
    token: row.token,
    misconfiguredReason: Option.fromNullishOr(row.misconfigured_reason),
    observed: row.observed_at === null
      ? Option.none()
      : Option.some(new DnsObservation({
        txt: row.observed_txt ?? [],
        cname: Option.fromNullishOr(row.observed_cname),
        checkedAt: row.observed_at,
        error: Option.fromNullishOr(row.observed_error)
      })),
    verifiedAt: Option.fromNullishOr(row.verified_at),
    lastCheckedAt: Option.fromNullishOr(row.last_checked_at),
    pendingSince: row.pending_since,
    proofMissingSince: Option.fromNullishOr(row.proof_missing_since),
    checks: row.checks,
    nextCheckAt: Option.fromNullishOr(row.next_check_at),
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at
  })

/** A time column's value. */
export const dateOf = (time: Option.Option<DateTime.Utc>): Date | null => Option.getOrNull(Option.map(time, DateTime.toDateUtc))
