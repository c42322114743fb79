import { Context, type DateTime, type Effect, type Option } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { SessionId, UserId, WorkspaceId } from "../shared/index.ts"
import type { Session, SessionRevokeReason } from "./session.ts"

/** A session found by a refresh token digest, and whether that token is the current one or one rotated away (and when). */
export interface RefreshTokenMatch {
  readonly session: Session
  readonly current: boolean
  /** When a rotation retired the token; none for the current one. */
  readonly retiredAt: Option.Option<DateTime.Utc>
}

/** Port: member sessions, found only by digests of their tokens. */
export class SessionRepository extends Context.Service<SessionRepository, {
  readonly insert: (session: Session) => Effect.Effect<void, Unavailable>
  readonly findById: (id: SessionId) => Effect.Effect<Option.Option<Session>, Unavailable>
  /**
   * By the current access digest, or by one a rotation superseded (kept beside the retired refresh digest for as long
   * as the session is stored), so a superseded access token is told `session_expired`, not `invalid_session`.
   */
  readonly findByAccessDigest: (digest: string) => Effect.Effect<Option.Option<Session>, Unavailable>
  /**
   * By the current refresh digest, or by one a rotation retired (kept, e.g. in a `session_refresh_tokens` table,
   * for as long as the session is stored) so a replayed refresh token is recognised as reuse.
   */
  readonly findByRefreshDigest: (digest: string) => Effect.Effect<Option.Option<RefreshTokenMatch>, Unavailable>
  /**
   * Compare-and-set rotation: only while the stored session is unrevoked and its refresh digest is still
   * `previous.refreshDigest`, stores `next` and retires `previous`'s refresh and access digests (at `next.lastUsedAt`);
   * `false` when another rotation or a
   * revocation came first (Postgres: `UPDATE … WHERE id = $1 AND refresh_digest = $2 AND revoked_at IS NULL`).
   */
  readonly rotate: (previous: Session, next: Session) => Effect.Effect<boolean, Unavailable>
  /** Sets only the active workspace, so a concurrent rotation's digests are never overwritten. */
  readonly setActiveWorkspace: (id: SessionId, workspaceId: WorkspaceId) => Effect.Effect<void, Unavailable>
  /** Sets `revokedAt` and `revokeReason` unless already revoked; `false` when there was nothing to revoke. */
  readonly revoke: (id: SessionId, at: DateTime.Utc, reason: SessionRevokeReason) => Effect.Effect<boolean, Unavailable>
  /**
   * Revokes every unrevoked session of the user; answers the sessions it ended, as revoked, so the caller records each
   * one's end (a session another revocation ended first is not among them).
   */
  readonly revokeAllForUser: (userId: UserId, at: DateTime.Utc, reason: SessionRevokeReason) => Effect.Effect<ReadonlyArray<Session>, Unavailable>
  readonly touchLastUsed: (id: SessionId, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
  /** The user's unrevoked sessions, most recently used first. */
  readonly listByUser: (userId: UserId) => Effect.Effect<ReadonlyArray<Session>, Unavailable>
}>()("@atrium/domain/SessionRepository") {}
