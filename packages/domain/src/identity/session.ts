import { DateTime, Duration, Option, Schema, Struct } from "effect"
import { deriveView, SessionId, UserId, WorkspaceId } from "../shared/index.ts"

/** Why a session ended early. */
export const SessionRevokeReason = Schema.Literals(["signed_out", "revoked", "refresh_token_reused", "password_reset"]).annotate({
  description: "signed_out: by its own sign-out; revoked: ended from the session list; refresh_token_reused: a rotated refresh token was presented again (RFC 9700); password_reset: the account's password was reset"
})
export type SessionRevokeReason = typeof SessionRevokeReason.Type

/** How long session tokens live. */
export interface SessionPolicy {
  readonly accessTtl: Duration.Duration
  /** Sliding: every rotation issues a refresh token good for this long from then. */
  readonly refreshTtl: Duration.Duration
  /**
   * How long after a rotation the refresh token it retired still answers with the same successor (two requests a phone
   * sent at once, a lost response); after it, presenting that token is reuse and ends the session (RFC 9700).
   */
  readonly refreshLeeway: Duration.Duration
}

/** 15-minute access tokens, 30-day refresh tokens, 30 seconds of leeway for a just-rotated refresh token. */
export const defaultSessionPolicy: SessionPolicy = {
  accessTtl: Duration.minutes(15),
  refreshTtl: Duration.days(30),
  refreshLeeway: Duration.seconds(30)
}

/** A member session as stored: digests of its tokens only, never the tokens. */
export class Session extends Schema.Class<Session>("@atrium/domain/Session")({
  id: SessionId,
  userId: UserId,
  activeWorkspaceId: WorkspaceId,
  accessDigest: Schema.String,
  accessExpiresAt: Schema.DateTimeUtc,
  refreshDigest: Schema.String,
  refreshExpiresAt: Schema.DateTimeUtc,
  /**
   * The random salt the current token pair was derived with from the refresh token it replaced (none for a sign-in's
   * pair), so that token, presented again within the leeway, yields the same pair without any token being stored.
   */
  rotationSalt: Schema.OptionFromNullOr(Schema.String),
  /** Refresh rotations so far; the refresh tokens they retired are kept (by digest) to detect reuse. */
  generation: Schema.Int,
  createdAt: Schema.DateTimeUtc,
  lastUsedAt: Schema.DateTimeUtc,
  revokedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  revokeReason: Schema.OptionFromNullOr(SessionRevokeReason),
  userAgent: Schema.OptionFromNullOr(Schema.String)
}) {
  /** Revoked, signed out, or ended by reuse detection. */
  get isRevoked(): boolean {
    return Option.isSome(this.revokedAt)
  }
  /** The refresh token has lapsed: nothing can revive the session. */
  isLapsedAt(now: DateTime.Utc): boolean {
    return DateTime.isGreaterThanOrEqualTo(now, this.refreshExpiresAt)
  }
  /** The access token is past its expiry (the client refreshes). */
  isAccessExpiredAt(now: DateTime.Utc): boolean {
    return DateTime.isGreaterThanOrEqualTo(now, this.accessExpiresAt)
  }
}

/** A session as the session list shows it: no digests, no rotation state. */
export const SessionView = Schema.Struct({
  ...Struct.pick(Session.fields, ["id", "activeWorkspaceId", "createdAt", "lastUsedAt", "userAgent"]),
  /** When the refresh token lapses unless it is rotated. */
  expiresAt: Schema.DateTimeUtc,
  /** The session that is asking. */
  current: Schema.Boolean
})
export type SessionView = typeof SessionView.Type

const sessionView = deriveView(Session, SessionView, {
  withheld: ["userId", "accessDigest", "accessExpiresAt", "refreshDigest", "rotationSalt", "generation", "revokedAt", "revokeReason"],
  renamed: { expiresAt: "refreshExpiresAt" }
})

/** The listable view of a session. */
export const toSessionView = (session: Session, currentId?: SessionId): SessionView => sessionView(session, { current: session.id === currentId })
