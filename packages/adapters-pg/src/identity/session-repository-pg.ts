import {
  type RefreshTokenMatch,
  Session,
  type SessionId,
  SessionRepository,
  type SessionRevokeReason,
  type UserId,
  type WorkspaceId
} from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { SessionRow } from "./identity-rows.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { dateOrNull } from "../shared/sql-values.ts"

const decodeSessions = Schema.decodeUnknownEffect(Schema.Array(SessionRow))
const decodeRetirement = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ current: Schema.Boolean, retired_at: Schema.NullOr(Schema.DateTimeUtcFromDate) }))
)

const columns =
  "id, user_id, active_workspace_id, access_digest, access_expires_at, refresh_digest, refresh_expires_at, rotation_salt, " +
  "generation, created_at, last_used_at, revoked_at, revoke_reason, user_agent"

// The same columns of the joined session, for the retired-token half of `findByRefreshDigest`.
const joinedColumns = columns.split(", ").map((column) => `s.${column}`).join(", ")

/** Postgres member sessions: found by token digests only, rotated by compare-and-set, retired refresh digests kept. */
export const SessionRepositoryPg = Layer.effect(
  SessionRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const toSessions = (rows: ReadonlyArray<unknown>) =>
      decodeSessions(rows).pipe(Effect.map((decoded) => decoded.map((row) => new Session(row))))

    const insert = Effect.fn("SessionRepository.insert")(function*(session: Session) {
      yield* sql`
        INSERT INTO sessions (${sql.literal(columns)})
        VALUES (
          ${session.id}, ${session.userId}, ${session.activeWorkspaceId}, ${session.accessDigest},
          ${DateTime.toDateUtc(session.accessExpiresAt)}, ${session.refreshDigest}, ${DateTime.toDateUtc(session.refreshExpiresAt)},
          ${Option.getOrNull(session.rotationSalt)}, ${session.generation},
          ${DateTime.toDateUtc(session.createdAt)}, ${DateTime.toDateUtc(session.lastUsedAt)}, ${dateOrNull(session.revokedAt)},
          ${Option.getOrNull(session.revokeReason)}, ${Option.getOrNull(session.userAgent)}
        )
      `.pipe(orUnavailable)
    })

    const findById = Effect.fn("SessionRepository.findById")(function*(id: SessionId) {
      const sessions = yield* sql`SELECT ${sql.literal(columns)} FROM sessions WHERE id = ${id}`.pipe(Effect.flatMap(toSessions), orUnavailable)
      return Option.fromNullishOr(sessions[0])
    })

    // The current digest wins over a superseded one; both are random, so a tie never happens outside a bug.
    const findByAccessDigest = Effect.fn("SessionRepository.findByAccessDigest")(function*(digest: string) {
      const sessions = yield* sql`
        SELECT * FROM (
          SELECT ${sql.literal(columns)}, true AS current FROM sessions WHERE access_digest = ${digest}
          UNION ALL
          SELECT ${sql.literal(joinedColumns)}, false AS current
          FROM session_refresh_tokens r JOIN sessions s ON s.id = r.session_id
          WHERE r.access_digest = ${digest}
        ) matches
        ORDER BY current DESC
        LIMIT 1
      `.pipe(Effect.flatMap(toSessions), orUnavailable)
      return Option.fromNullishOr(sessions[0])
    })

    // One statement, so both halves read one snapshot: a rotation committing in between cannot hide the token from both.
    const findByRefreshDigest = Effect.fn("SessionRepository.findByRefreshDigest")(function*(digest: string) {
      const rows = yield* sql`
        SELECT * FROM (
          SELECT ${sql.literal(columns)}, true AS current, NULL::timestamptz AS retired_at FROM sessions WHERE refresh_digest = ${digest}
          UNION ALL
          SELECT ${sql.literal(joinedColumns)}, false AS current, r.retired_at
          FROM session_refresh_tokens r JOIN sessions s ON s.id = r.session_id
          WHERE r.digest = ${digest}
        ) matches
        ORDER BY current DESC
        LIMIT 1
      `.pipe(orUnavailable)
      const [sessions, flags] = yield* Effect.all([toSessions(rows), decodeRetirement(rows)]).pipe(orUnavailable)
      const session = sessions[0]
      const flag = flags[0]
      return session === undefined || flag === undefined
        ? Option.none()
        : Option.some<RefreshTokenMatch>({ session, current: flag.current, retiredAt: Option.fromNullishOr(flag.retired_at) })
    })

    // Compare-and-set in one statement (the caller holds no transaction): the update matches only while the refresh
    // digest is still `previous`'s and the session unrevoked, and the retired digest is recorded only when it did. A
    // concurrent rotation waits for the row lock, then re-checks the condition against the committed row and misses.
    // Only the rotation's columns change, so a concurrent workspace switch is never undone.
    const rotate = Effect.fn("SessionRepository.rotate")(function*(previous: Session, next: Session) {
      const retired = yield* sql`
        WITH rotated AS (
          UPDATE sessions SET
            access_digest = ${next.accessDigest},
            access_expires_at = ${DateTime.toDateUtc(next.accessExpiresAt)},
            refresh_digest = ${next.refreshDigest},
            refresh_expires_at = ${DateTime.toDateUtc(next.refreshExpiresAt)},
            rotation_salt = ${Option.getOrNull(next.rotationSalt)},
            generation = ${next.generation},
            last_used_at = ${DateTime.toDateUtc(next.lastUsedAt)}
          WHERE id = ${previous.id} AND refresh_digest = ${previous.refreshDigest} AND revoked_at IS NULL
          RETURNING id
        )
        INSERT INTO session_refresh_tokens (digest, session_id, retired_at, access_digest)
        SELECT ${previous.refreshDigest}, id, ${DateTime.toDateUtc(next.lastUsedAt)}, ${previous.accessDigest} FROM rotated
        RETURNING session_id
      `.pipe(orUnavailable)
      return retired.length > 0
    })

    const setActiveWorkspace = Effect.fn("SessionRepository.setActiveWorkspace")(function*(id: SessionId, workspaceId: WorkspaceId) {
      yield* sql`UPDATE sessions SET active_workspace_id = ${workspaceId} WHERE id = ${id}`.pipe(orUnavailable)
    })

    // The first revocation's time and reason stand; a later one changes nothing.
    const revoke = Effect.fn("SessionRepository.revoke")(function*(id: SessionId, at: DateTime.Utc, reason: SessionRevokeReason) {
      const revoked = yield* sql`
        UPDATE sessions SET revoked_at = ${DateTime.toDateUtc(at)}, revoke_reason = ${reason}
        WHERE id = ${id} AND revoked_at IS NULL
        RETURNING id
      `.pipe(orUnavailable)
      return revoked.length > 0
    })

    const revokeAllForUser = Effect.fn("SessionRepository.revokeAllForUser")(function*(userId: UserId, at: DateTime.Utc, reason: SessionRevokeReason) {
      const revoked = yield* sql`
        UPDATE sessions SET revoked_at = ${DateTime.toDateUtc(at)}, revoke_reason = ${reason}
        WHERE user_id = ${userId} AND revoked_at IS NULL
        RETURNING ${sql.literal(columns)}
      `.pipe(Effect.flatMap(toSessions), orUnavailable)
      return revoked
    })

    // GREATEST keeps the latest time when processes write out of order.
    const touchLastUsed = Effect.fn("SessionRepository.touchLastUsed")(function*(id: SessionId, at: DateTime.Utc) {
      yield* sql`
        UPDATE sessions SET last_used_at = GREATEST(last_used_at, ${DateTime.toDateUtc(at)}::timestamptz) WHERE id = ${id}
      `.pipe(orUnavailable)
    })

    const listByUser = Effect.fn("SessionRepository.listByUser")(function*(userId: UserId) {
      return yield* sql`
        SELECT ${sql.literal(columns)} FROM sessions
        WHERE user_id = ${userId} AND revoked_at IS NULL
        ORDER BY last_used_at DESC, id DESC
      `.pipe(Effect.flatMap(toSessions), orUnavailable)
    })

    return SessionRepository.of({
      insert,
      revokeAllForUser,
      findById,
      findByAccessDigest,
      findByRefreshDigest,
      rotate,
      setActiveWorkspace,
      revoke,
      touchLastUsed,
      listByUser
    })
  })
)
