import { DateTime, Duration, Option, Schema } from "effect"
import { Actor, deriveView } from "../shared/index.ts"
import { InvitationSummary } from "./identity-events.ts"
import { InvitationId, UserId, WorkspaceId } from "../shared/index.ts"
import { Role } from "../access/index.ts"
import { Email } from "./email.ts"

/** How long an invitation token can be accepted. */
export const invitationTtl = Duration.days(7)

/** Where an invitation stands at a given time. */
export const InvitationStatus = Schema.Literals(["pending", "accepted", "revoked", "expired"])
export type InvitationStatus = typeof InvitationStatus.Type

/**
 * Where the invitation's mail stands: `sending` (queued or being retried), `sent` (the mail server accepted it) or
 * `failed` (refused for good, or retries ran out: the invitee never got the link); none for an invitation that was
 * never mailed.
 */
export const InvitationDelivery = Schema.Literals(["sending", "sent", "failed"]).annotate({
  description: "The invitation mail: sending (queued or retrying), sent (accepted by the mail server), failed (refused for good or retries ran out)"
})
export type InvitationDelivery = typeof InvitationDelivery.Type

/** The outbox's name for an invitation's message: one message per invitation. */
export const invitationMailKey = (id: InvitationId): string => `invitation:${id}`

/** An invitation to join a workspace with a role; only its token's digest is stored. */
export class Invitation extends Schema.Class<Invitation>("@atrium/domain/Invitation")({
  id: InvitationId,
  workspaceId: WorkspaceId,
  email: Email,
  role: Role,
  tokenDigest: Schema.String,
  invitedBy: Actor,
  createdAt: Schema.DateTimeUtc,
  expiresAt: Schema.DateTimeUtc,
  acceptedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  acceptedBy: Schema.OptionFromNullOr(UserId),
  revokedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** Its status at `now`; accepted and revoked win over expired. */
  statusAt(now: DateTime.Utc): InvitationStatus {
    if (Option.isSome(this.acceptedAt)) return "accepted"
    if (Option.isSome(this.revokedAt)) return "revoked"
    return DateTime.isGreaterThanOrEqualTo(now, this.expiresAt) ? "expired" : "pending"
  }
}

/** The `InvitationSummary` of the event catalog; never the token or its digest. */
export const toInvitationSummary = deriveView(Invitation, InvitationSummary, {
  withheld: ["workspaceId", "tokenDigest", "invitedBy", "createdAt", "acceptedAt", "acceptedBy", "revokedAt"]
})
